//! Validation: an order as parsed, checked against the board and a position.
