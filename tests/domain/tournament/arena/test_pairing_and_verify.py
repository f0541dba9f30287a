"""Properties over thousands of random arenas: no immediate rematches, every player in one game at a time,
points as the scoring rule says, and `verify` accepting every arena and catching any tampering."""

from __future__ import annotations

import random

import msgspec
import pytest

import domain.tournament.arena as A
from tests.domain.tournament.arena import support
from tests.domain.tournament.arena.support import random_arena


def _walk(events):
    """Check the invariants while folding; the final state."""
    state = None
    for event in events:
        if isinstance(event, A.PlayersPaired):
            seen: set[str] = set()
            for game in event.games:
                assert not seen & set(game.players), "a player in two games of one pairing"
                seen |= set(game.players)
                for pid in game.players:
                    p = state.players[pid]
                    assert p.playing is None and p.presence == "active"
                    assert set(p.last_opponents) != set(game.players) - {pid}, "same opponents twice in a row"
        state = A.evolve(state, event)
    return state


@pytest.mark.parametrize("seats", [2, 3, 4, 6])
def test_random_arenas_never_repeat_opponents_in_a_row_and_verify(seats):
    rnd = random.Random(seats)
    for _ in range(150 if seats == 2 else 60):
        events = random_arena(rnd, seats, rnd.randint(seats, 14), 250)
        state = _walk(events)
        report = A.verify(events)
        assert report.ok, report.problems
        assert state.finished and state.running == 0
        for p in state.players.values():
            assert p.points == sum(p.sheet) and p.playing is None


def test_arenas_recorded_before_the_berserk_minimum_still_fold_and_verify():
    # issue 44: logs from before `berserk_moves` and `GameScored.moves` read 0 and None (no minimum), so every
    # berserk win recorded then keeps its bonus and verifies as recorded
    rnd = random.Random(44)
    bonuses = 0
    for _ in range(40):
        events = random_arena(rnd, 2, rnd.randint(2, 10), 250, moves=False, berserk_moves=0)
        old = []
        for e in events:
            data = {k: v for k, v in A.event_data(e).items() if k not in ("berserk_moves", "moves")}
            old.append(A.decode_event(A.event_type(e), data))
        assert A.verify(old).ok and A.fold(old).settings.berserk_moves == 0
        bonuses += sum(1 for e in old if isinstance(e, A.GameScored) and e.moves is None and 3 in e.points)
    assert bonuses > 0


def test_verify_reads_the_public_log_after_the_end():
    events = random_arena(random.Random(3), 2, 8, 200)
    public = [A.decode_event(A.event_type(e), A.event_data(A.redact(e, True))) for e in events]
    assert A.verify(public).ok


def test_verify_catches_a_changed_pairing_result_or_seed():
    rnd = random.Random(11)
    events = random_arena(rnd, 2, 8, 200)
    paired = next(i for i, e in enumerate(events) if isinstance(e, A.PlayersPaired))
    swapped = list(events)
    games = list(events[paired].games)
    games[0] = msgspec.structs.replace(games[0], players=list(reversed(games[0].players)))
    swapped[paired] = msgspec.structs.replace(events[paired], games=games)
    assert not A.verify(swapped).ok
    scored = next(i for i, e in enumerate(events) if isinstance(e, A.GameScored) and not e.aborted)
    bumped = list(events)
    bumped[scored] = msgspec.structs.replace(events[scored], points=[p + 1 for p in events[scored].points])
    assert not A.verify(bumped).ok
    reseeded = [msgspec.structs.replace(events[0], seed="00" * 32), *events[1:]]
    assert not A.verify(reseeded).ok


def test_an_unfinished_arena_does_not_verify():
    events = random_arena(random.Random(5), 2, 6, 100)
    ended = next(i for i, e in enumerate(events) if isinstance(e, A.TournamentEnded))
    report = A.verify(events[:ended])
    assert not report.ok


def test_verify_re_derives_a_bot_the_organiser_entered_and_refuses_one_entered_by_anyone_else():
    state = support.given(*support.opened(minutes=1))
    events = list(support.opened(minutes=1))
    for actor, command in [(support.ORGANISER, A.Join(name="Bot", player_id="bot-1")), ("a", A.Join(name="A")),
                           (None, A.Pair(at_ms=support.START))]:
        decided = A.decide(state, actor, command)
        state, events = A.fold(decided, state), events + decided
    [game] = state.games.values()
    for command in [A.RecordResult(game_id=game.game_id, outcome=support.outcome([1, 2])),
                    A.Close(at_ms=support.START + 60_000)]:
        decided = A.decide(state, None, command)
        state, events = A.fold(decided, state), events + decided
    assert state.finished and A.verify(events).ok
    forged = [msgspec.structs.replace(e, by="a") if isinstance(e, A.PlayerJoined) and e.by else e for e in events]
    assert not A.verify(forged).ok
