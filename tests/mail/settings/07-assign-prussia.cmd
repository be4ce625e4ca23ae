game assign g Prussia prussia@example.org --password pw-prussia
