game set g colour red
