at: 2026-12-09T09:00:00Z
game replace life Prussia erin@example.net
