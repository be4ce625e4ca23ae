game set g observers maybe
