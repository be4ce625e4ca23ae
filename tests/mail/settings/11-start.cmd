game
start
g
