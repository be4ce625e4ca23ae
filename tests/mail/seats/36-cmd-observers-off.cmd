game
set
g
observers
off
