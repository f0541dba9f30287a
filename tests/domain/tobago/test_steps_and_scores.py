"""Tobago's view never misleads (issue 24): drive steps left and hidden scores.

tobago.md "B. Drive": up to 3 steps; "Picking it up ends his remaining drive steps ... (if the ATV
already stood there at the start of the turn, he collects first and then still takes action A or B)".
"""

import msgspec

from domain.simulate import play_random
from domain.table import Table
from domain.tobago.commands import Drive
from domain.tobago.events import TreasureCollected, TurnEnded
from domain.tobago.game import GAME
from domain.tobago.view import TobagoView

TABLE = Table(GAME)


def positions(seed: bytes = b"tb{}:0"):
    """Every (state, event) of the seeded 2-seat game the issue reports (options {}, seed tb{}:0)."""
    played = play_random(TABLE, {}, 2, seed, check_views=False)
    assert played.error is None
    state = None
    for event in played.events:
        state = TABLE.evolve(state, event)
        yield state, event


def test_steps_left_is_three_at_the_start_of_every_turn():
    starts = 0
    for state, event in positions():
        if isinstance(event, TurnEnded) and state.status == "active" and state.game.phase == "turn":
            starts += 1
            for seat in (None, 0, 1):
                assert TABLE.view(state, seat).turn.steps_left == 3, f"v{state.version}"
    assert starts > 50


def test_steps_left_is_three_after_collecting_a_treasure_at_turn_start():
    checked, waiting = 0, False
    for state, event in positions():
        if isinstance(event, TreasureCollected) and not state.game.turn.acted:
            waiting = True  # collected before acting: the share first, then the turn's action
        elif waiting and state.game is not None and state.game.phase == "turn":
            assert not state.game.turn.acted and TABLE.view(state, None).turn.steps_left == 3, f"v{state.version}"
            assert any(isinstance(c, Drive) for c in TABLE.legal(state, state.game.turn.seat))
            checked, waiting = checked + 1, False
    assert checked, "the seeded game collects a treasure at the start of a turn"


def test_a_spectator_sees_hidden_scores_as_null_and_the_schema_says_so():
    state = next(s for s, _ in positions() if s.game is not None and s.game.phase == "turn")
    assert TABLE.view(state, None).scores == [None, None]
    assert TABLE.view(state, 1).scores[0] is None and TABLE.view(state, 1).scores[1] == 0
    schema = msgspec.json.schema(TobagoView)
    scores = schema["$defs"]["TobagoView"]["properties"]["scores"]
    assert {"type": "null"} in scores["items"]["anyOf"]


def test_no_drive_steps_are_left_while_the_atvs_are_placed_nor_once_the_game_is_over():
    """tobago.md Setup 3: each player puts his ATV on a land hex (no turn has begun, nobody may drive);
    and nobody drives after the end. The view said 3 in both."""
    placing = over = 0
    for state, _ in positions():
        if state.game is None or state.game.phase not in ("place_atv", "over"):
            continue
        placing, over = placing + (state.game.phase == "place_atv"), over + (state.game.phase == "over")
        assert all(TABLE.view(state, seat).turn.steps_left == 0 for seat in (None, 0, 1)), f"v{state.version}"
    assert placing and over
