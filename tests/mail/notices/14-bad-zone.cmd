game set g zone Mars/Olympus
