"""What each seat may see (tikal.md "Hidden information"), checked along random legal games.

The contract every game owes (random play, schemas, legal/decide agreement) is
tests/domain/test_games.py; here only Tikal's secrets: the stack order and the
face-down treasure kinds never reach a view or a redacted event.
"""

import msgspec
import pytest

from domain.simulate import play_random
from domain.table import Table
from domain.tikal.components import TILES, TREASURE_KINDS
from domain.tikal.events import StackShuffled, TileDrawn, TilesRevealed, TreasureDug, TreasureTraded
from domain.tikal.game import GAME

TABLE = Table(GAME)
OPTIONS = [{}, {"variant": "auction"}, {"edition": "classic"}, {"variant": "auction", "edition": "classic"}]


def _strings(value) -> set[str]:
    found: set[str] = set()

    def walk(v):
        if isinstance(v, str):
            found.add(v)
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(k)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(msgspec.json.decode(msgspec.json.encode(value)))
    return found


@pytest.mark.parametrize("options", [{}, {"variant": "auction"}], ids=["standard", "auction"])
def test_no_view_or_redacted_event_shows_the_stack_order_or_face_down_treasures(options):
    """tikal.md "Hidden information": only the next tile's letter is public, face-down kinds stay hidden."""
    played = play_random(TABLE, options, 3, b"tikal-hidden", check_views=False)
    assert played.error is None
    state, seen_tiles = None, set()
    for event in played.events:
        state = TABLE.evolve(state, event)
        if isinstance(event, TileDrawn):
            seen_tiles.add(event.tile)
        if isinstance(event, TilesRevealed):
            seen_tiles.update(event.tiles)
        if state.game is None or state.status != "active":
            continue
        hidden = state.game.hidden
        assert set(hidden.stack).isdisjoint(seen_tiles)
        for seat in [None, 0, 1, 2]:
            shown = _strings(TABLE.view(state, seat)) | _strings(TABLE.redact(event, seat, public=False))
            assert not shown & set(hidden.stack), "a tile still in the stack leaked"
            assert not shown & set(TILES) - seen_tiles
            if not isinstance(event, StackShuffled):
                face_up = {k for p in state.game.players for k, n in zip(TREASURE_KINDS, p.treasures) if n}
                view_kinds = _strings(TABLE.view(state, seat)) & set(TREASURE_KINDS)
                assert view_kinds <= face_up, "a treasure kind not face up in a hand appears in a view"
            redacted = TABLE.redact(event, seat, public=False)
            if not isinstance(event, (TreasureDug, TreasureTraded)):  # only face-up tokens are ever named
                assert not _strings(redacted) & set(TREASURE_KINDS)
            if isinstance(event, StackShuffled):
                assert redacted.tiles is None and redacted.treasures is None
            text = msgspec.json.encode(TABLE.view(state, seat)).decode()
            assert "hidden" not in text and "stack" not in text


def test_a_finished_game_shows_everything():
    played = play_random(TABLE, {}, 2, b"tikal-public")
    state = TABLE.fold(played.events)
    shuffled = next(e for e in played.events if isinstance(e, StackShuffled))
    assert TABLE.redact(shuffled, 0, public=True).tiles is not None and state.status == "finished"
