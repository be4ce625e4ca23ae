game set g absences-per-year 53
