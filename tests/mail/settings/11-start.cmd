game start g
