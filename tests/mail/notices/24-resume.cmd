game resume g
