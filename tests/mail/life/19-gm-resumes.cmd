at: 2026-12-05T15:00:00Z
game resume life
