game assign g Russia russia@example.org --password pw-russia
