game assign g Austria austria@example.org --password pw-austria
