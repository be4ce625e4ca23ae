game set g press none
