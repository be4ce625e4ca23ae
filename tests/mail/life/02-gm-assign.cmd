at: 2026-11-30T09:10:00Z
game assign life France france@example.org --password pw-france
game assign life England england@example.org --password pw-england
game assign life Austria austria@example.org --password pw-austria
game assign life Prussia prussia@example.org --password pw-prussia
game assign life Russia russia@example.org
game assign life GM gm@example.org --password gm-pw
