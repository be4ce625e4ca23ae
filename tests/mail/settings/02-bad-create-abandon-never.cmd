game create h --gm gm@example.org --abandon-after never
