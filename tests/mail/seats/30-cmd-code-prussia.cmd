game
code
g
Prussia
