game deadline g "2027-03-28 02:30"
