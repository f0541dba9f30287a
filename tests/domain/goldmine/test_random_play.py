"""Random legal play for every player count and variant, replay, and hidden information.

The shared harness (domain.simulate.play_random) checks that everything
`legal` offers `decide` accepts, that commands round-trip through JSON and
that replaying the log reproduces the state. Here a small `turn_cap` keeps
the suite fast; the large by-hand run uses the default cap.
"""

import msgspec
import pytest

from domain.goldmine.commands import EndTurn
from domain.goldmine.events import TileDrawn
from domain.goldmine.game import GAME
from domain.goldmine.rules import check_invariants
from domain.kernel import Rng, RuleViolation
from domain.simulate import play_random
from domain.table import Table

TABLE = Table(GAME)
VARIANTS = [
    ({}, [2, 3, 4, 5, 6]),
    ({"mud": True}, [2, 3, 4, 5, 6]),
    ({"mud": True, "five_tiles": True}, [2, 3, 4]),
    ({"alliances": True}, [4, 6]),
    ({"alliances": True, "mud": True}, [4, 6]),
]
CASES = [(options, players) for options, counts in VARIANTS for players in counts]


@pytest.mark.parametrize("options,players", CASES)
def test_random_games_finish_without_contract_errors(options, players):
    for seed in range(6):
        played = play_random(TABLE, {**options, "turn_cap": 60}, players, f"gm-{players}-{seed}".encode(),
                             invariant=check_invariants)
        assert played.error is None, played.error
        assert played.outcome is not None and not played.capped


def test_games_under_the_default_cap_end_with_an_outcome():
    for seed in range(1):
        played = play_random(TABLE, {}, 4, f"default-{seed}".encode(), alternatives=1, check_views=False,
                             invariant=check_invariants)
        assert played.error is None and played.outcome is not None
        assert played.outcome.details["turns"] <= 500


def test_replaying_the_log_reproduces_the_state():
    played = play_random(TABLE, {"mud": True, "turn_cap": 40}, 3, b"replay")
    live = TABLE.fold(played.events)
    again = TABLE.fold([TABLE.decode_event(TABLE.event_type(e), TABLE.event_data(e)) for e in played.events])
    assert msgspec.json.encode(live) == msgspec.json.encode(again)


@pytest.mark.parametrize("options,players", [({}, 2), ({"mud": True, "five_tiles": True}, 3),
                                             ({"alliances": True}, 6)])
def test_no_view_or_redacted_event_reveals_the_stack_order_or_undrawn_tiles(options, players):
    # spec "Hidden information": the stack order and the 20 scout tiles before they are drawn
    played = play_random(TABLE, {**options, "turn_cap": 40}, players, b"secret", check_views=False)
    assert played.error is None
    state, seen = None, set()
    for event in played.events:
        state = TABLE.evolve(state, event)
        if isinstance(event, TileDrawn):
            seen.add(event.tile)
        if state.game is None or state.status != "active":
            continue
        hidden = state.game.hidden
        order = [*hidden.stack, *hidden.scout]
        secrets = [f'"{t}"'.encode() for t in order if t not in seen]
        pairs = [f'"{a}","{b}"'.encode() for a, b in zip(order, order[1:])]
        for seat in [None, *range(players)]:
            shown = msgspec.json.encode(TABLE.view(state, seat)) + msgspec.json.encode(
                TABLE.redact(event, seat, public=False))
            leaks = [s for s in secrets + pairs if s in shown]
            assert not leaks, f"seat {seat} sees {leaks[:3]} in {type(event).__name__}"


@pytest.mark.parametrize("options,players", [({"mud": True, "five_tiles": True}, 3), ({"alliances": True}, 4)])
def test_decide_accepts_every_command_legal_offers_and_refuses_seats_that_may_not_act(options, players):
    state, version = None, 0
    played = play_random(TABLE, {**options, "turn_cap": 12}, players, b"every", check_views=False)
    for event in played.events:
        state = TABLE.evolve(state, event)
        version += 1
        if state.status != "active" or state.game is None or state.game.over:
            continue
        acting = GAME.to_act(state.game)
        for seat in range(players):
            offered = GAME.legal(state.game, seat)
            if seat not in acting:
                assert offered == []
                with pytest.raises(RuleViolation) as exc:
                    GAME.decide(state.game, seat, EndTurn(), Rng(b"every", version))
                assert exc.value.code == "goldmine.not_your_turn"
                continue
            for command in offered:
                try:
                    GAME.decide(state.game, seat, command, Rng(b"every", version))
                except RuleViolation as exc:  # pragma: no cover - reported with the command
                    raise AssertionError(f"legal {command} refused: {exc.code}") from exc
