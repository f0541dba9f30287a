"""The one visibility rule: a viewer sees as its own seat while the game runs, everything after."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from domain.table import Table
from service.commands.exceptions import DealSealed, GameRunning, SeatNotFound
from service.commands.players import Viewer
from service.ops.background import coalesced
from service.store.protocol import Player, StoredEvent
from service.commands.visibility import SEALED, may_see_seat, require_seat, seat_taken_by, sight, visible
from testkit.tally import TALLY

TABLE = Table(TALLY)


def player(pid: str) -> Viewer:
    return Viewer(player=Player(id=pid, name=pid, created_at=datetime.now(UTC)))


def running_game():
    events = TABLE.create({"target": 20}, 2, b"s" * 32, created_by="a")
    state = TABLE.fold(events)
    for pid in ("a", "b"):
        joined = TABLE.join(state, pid, pid)
        events += joined
        state = TABLE.fold(joined, state)
    started = TABLE.start(state, "a")
    return events + started, TABLE.fold(started, state)


def stored(events) -> list[StoredEvent]:
    now = datetime.now(UTC)
    return [StoredEvent(position=i, tx=1, stream_id="g", version=i, type=TABLE.event_type(e), data=TABLE.event_data(e),
                        metadata={}, at=now, prev_hash="", hash="") for i, e in enumerate(events, start=1)]


def test_a_seated_player_sees_as_its_seat_a_spectator_as_none_an_admin_everything():
    _, state = running_game()
    assert sight(TABLE, state, player("b")).seat == 1 and not sight(TABLE, state, player("b")).public
    assert sight(TABLE, state, Viewer()).seat is None
    assert sight(TABLE, state, Viewer(admin=True)).public


def test_another_seats_view_is_refused_while_the_game_runs_and_a_missing_seat_is_not_found():
    _, state = running_game()
    seen = sight(TABLE, state, player("a"))
    assert may_see_seat(seen, 0) and not may_see_seat(seen, 1)
    with pytest.raises(GameRunning):
        require_seat(seen, state, 1)
    with pytest.raises(SeatNotFound):
        require_seat(sight(TABLE, state, Viewer(admin=True)), state, 5)


def test_hidden_secrets_and_the_seed_are_redacted_for_other_seats():
    events, state = running_game()
    shown = visible(TABLE, stored(events), sight(TABLE, state, player("a")))
    created = next(e for e in shown if e.type == "table.GameCreated")
    dealt = next(e for e in shown if e.type == "tally.SecretsDealt")
    assert created.data["seed"] is None
    assert dealt.data["secrets"][0] is not None and dealt.data["secrets"][1] is None


def finished_game():
    events, state = running_game()
    for seat in (0, 1, 0, 1, 0, 1, 0):
        if state.status != "active":
            break
        played = TABLE.play(state, seat, TABLE.decode_command({"type": "tally.Add", "amount": 3}), 0)
        events += played
        state = TABLE.fold(played, state)
    assert state.status == "finished"
    return events, state


def test_a_finished_game_of_a_sealed_deal_shows_its_seats_only_their_own_view_and_no_seed():
    events, state = finished_game()
    seen = sight(TABLE, state, player("a"), sealed=True)
    assert (seen.seat, seen.public, seen.sealed) == (0, False, True)
    shown = visible(TABLE, stored(events), seen)
    assert all(e.type != "table.SeedRevealed" for e in shown)
    assert next(e for e in shown if e.type == "tally.SecretsDealt").data["secrets"][1] is None
    with pytest.raises(GameRunning, match="duplicate deal"):
        require_seat(seen, state, 1)
    assert sight(TABLE, state, player("a")).public  # once the deal opens: everything


def test_a_sealed_deal_refuses_everyone_but_its_own_seats_and_an_admin():
    _, state = finished_game()
    for outsider in (Viewer(), player("someone at the next table")):
        with pytest.raises(DealSealed) as refused:
            sight(TABLE, state, outsider, sealed=True)
        assert str(refused.value) == SEALED  # the same words whatever the deal: nothing about it leaks
    assert sight(TABLE, state, Viewer(admin=True), sealed=True).public


def test_the_seat_a_player_takes_is_found_from_the_stored_platform_event():
    events, _ = running_game()
    assert seat_taken_by(TABLE, stored(events), "b") == 1
    assert seat_taken_by(TABLE, stored(events), "nobody") is None


async def test_many_appends_wake_the_projector_once():
    woken: list[int] = []
    hook = coalesced(lambda: woken.append(1), delay=0.01)
    for _ in range(50):
        hook("game")
    for _ in range(500):
        if woken:
            break
        await asyncio.sleep(0.01)
    assert woken == [1]
