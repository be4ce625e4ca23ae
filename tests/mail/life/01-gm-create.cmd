at: 2026-11-30T09:00:00Z
game create life --gm gm@example.org --timezone Europe/Paris --abandon-after 2
