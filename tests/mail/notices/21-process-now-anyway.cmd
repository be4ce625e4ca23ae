game process g --now-anyway
