at: 2026-11-30T09:00:00Z
game create g --variant napoleonic --gm gm@example.org --timezone Europe/Paris --movement 48h --retreat 24h --winter 48h --grace 24h --remind 12h
