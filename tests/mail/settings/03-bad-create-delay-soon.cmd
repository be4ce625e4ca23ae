game create h --gm gm@example.org --delay soon
