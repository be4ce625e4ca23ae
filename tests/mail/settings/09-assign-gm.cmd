game assign g GM gm@example.org --password gm-pw
