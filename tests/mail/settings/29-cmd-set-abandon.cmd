game set g abandon 0
