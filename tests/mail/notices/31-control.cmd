game control g Denmark none
