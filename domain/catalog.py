"""The registry of hosted game kinds: kind name -> Game, registered explicitly."""

from __future__ import annotations

from domain.kernel import Game

GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Add `game` under its kind (used below, and by tests for their own games)."""
    GAMES[game.kind] = game
    return game

from domain.tikal.game import GAME as _TIKAL  # noqa: E402
register(_TIKAL)
from domain.tobago.game import GAME as _TOBAGO  # noqa: E402
register(_TOBAGO)
from domain.goldmine.game import GAME as _GOLDMINE  # noqa: E402
register(_GOLDMINE)
from domain.coatl.game import GAME as _COATL  # noqa: E402
register(_COATL)
