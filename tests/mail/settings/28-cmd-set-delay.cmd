game set g delay 0s
