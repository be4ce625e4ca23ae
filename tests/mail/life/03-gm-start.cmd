at: 2026-11-30T10:00:00Z
game start life
