game create g --gm gm@example.org --timezone Europe/Paris --press grey --anonymous --abandon-after 3 --no-observers --delay 1h --absence-max-days 21 --absences-per-year 2
