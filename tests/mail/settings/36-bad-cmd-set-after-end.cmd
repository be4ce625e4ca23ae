game set g delay 1h
