"""Cóatl: the rules of the game as a pure decider."""
