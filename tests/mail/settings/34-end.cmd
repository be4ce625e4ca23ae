game end g --reason "the test is over"
