game
observe
g
frank@example.net
