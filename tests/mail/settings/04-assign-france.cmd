game assign g France france@example.org --password pw-france
