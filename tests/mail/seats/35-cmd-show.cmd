game
show
g
