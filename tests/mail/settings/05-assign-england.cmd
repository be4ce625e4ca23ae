game assign g England england@example.org --password pw-england
