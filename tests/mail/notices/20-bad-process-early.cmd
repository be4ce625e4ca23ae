game process g
