"""The read models the projector runs, by name."""

from __future__ import annotations

from projections.base import Projection
from projections.deadlines import Deadlines
from projections.games import Games
from projections.history import History
from projections.ratings import Ratings
from projections.sealed import HeldBack
from projections.stats import Stats
from projections.tournaments import Tournaments

# the models that count results hold a sealed duplicate deal back until it opens (`projections.sealed`); the
# lobby hides one when it is read, and the deadlines and tournament list hold no result
PROJECTIONS: dict[str, Projection] = {
    p.name: p for p in (Games(), HeldBack(History()), HeldBack(Ratings()), HeldBack(Stats()), Deadlines(),
                        Tournaments())}


def select(names: list[str] | None) -> list[Projection]:
    """The named projections (all when `names` is empty); KeyError for an unknown name."""
    return [PROJECTIONS[n] for n in names] if names else list(PROJECTIONS.values())
