"""Tikal (standard and auction variants, original and Classic editions) as a pure decider."""
