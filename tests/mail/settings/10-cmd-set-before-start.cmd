game set g grace 12h
