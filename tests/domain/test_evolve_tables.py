"""Each game's `evolve` is one small function per event type, found through its `EVOLVERS` table.

Every event type of a kind's union has its fold (the stream's first event builds the state
before the table is asked), and an event type without one raises instead of being skipped.
"""

from __future__ import annotations

import importlib
import typing

import msgspec
import pytest

from domain.catalog import GAMES
from domain.kernel import Rng, evolved


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_every_event_type_but_the_opening_one_has_its_own_fold(kind: str) -> None:
    game = GAMES[kind]
    table = importlib.import_module(f"domain.{kind}.evolve").EVOLVERS
    opening = type(game.setup(game.options_type(), game.min_players, Rng(b"seed", 0))[0])
    assert set(typing.get_args(game.event_type)) - set(table) == {opening}
    assert all(isinstance(event_type, type) for event_type in table)


def test_an_event_type_without_a_fold_raises_rather_than_leaving_the_state_as_it_was() -> None:
    class Stray(msgspec.Struct, frozen=True):
        pass

    with pytest.raises(AssertionError, match="Stray"):
        evolved({}, object(), Stray())
