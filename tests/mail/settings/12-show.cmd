game show g
