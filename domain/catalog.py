"""The hosted game kinds: a plain mapping from kind name to its `Game` record.

A fifth game is its package (the same skeleton as the others) plus one line here; the shared
tests in tests/domain/test_games.py then cover it without a new test file.
"""

from __future__ import annotations

from domain.coatl.game import GAME as COATL
from domain.goldmine.game import GAME as GOLDMINE
from domain.kernel import Game
from domain.tikal.game import GAME as TIKAL
from domain.tobago.game import GAME as TOBAGO

GAMES: dict[str, Game] = {game.kind: game for game in (TIKAL, COATL, TOBAGO, GOLDMINE)}
