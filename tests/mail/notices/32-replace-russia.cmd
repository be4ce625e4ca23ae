game assign g Russia tsar@example.org --password pw-tsar
