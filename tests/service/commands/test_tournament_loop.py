"""A tournament is an aggregate like a game: the one command loop and repository serve it, on any store.

These run on the in-memory store (the tournament service needs only the `EventStore` protocol); the
PostgreSQL side is proven by the store contract suite and `test_tournaments.py`.
"""

from __future__ import annotations

import domain.tournament as T
import domain.tournament.competition as C
from service.commands.players import Players, Viewer
from service.commands.repository import GameRepository, snapshot_format
from service.commands.tournaments import CODEC, Tournaments
from service.live.fanout import Broker
from service.store.memory import MemoryStore
from testkit.tally import TALLY


async def cup(entrants: int, snapshot_every: int = 50) -> tuple[Tournaments, str, list[Viewer]]:
    store = MemoryStore()
    tournaments = Tournaments(store, GameRepository(store, {"tally": TALLY}), Broker(), snapshot_every)
    players = Players(store)
    viewers = [Viewer(player=(await players.register(f"P{i}"))[0]) for i in range(entrants)]
    state = await tournaments.create(viewers[0], T.CreateTournament(kind="tally", options={"target": 9}, seats=2,
                                                                    rounds=1))
    for viewer in viewers:
        await tournaments.act(viewer, state.settings.tournament_id, T.Register(name=viewer.player.name))
    return tournaments, state.settings.tournament_id, viewers


async def test_a_tournament_state_is_snapshotted_and_loaded_back_equal():
    tournaments, tid, _ = await cup(12, snapshot_every=5)
    held = await tournaments.load(tid)
    snapshot = await tournaments.store.load_snapshot(Tournaments.stream_of(tid), snapshot_format(CODEC.kind))
    assert snapshot is not None and snapshot[0] == 10
    assert CODEC.load_state(snapshot[1]) == T.fold([CODEC.decode_event(e.type, e.data) for e in
                                                    await tournaments.store.read_stream(Tournaments.stream_of(tid), upto=10)])
    tournaments.repository.clear()  # (as a fresh process would: the snapshot plus the events after it)
    assert (await tournaments.load(tid)).state == held.state


async def test_the_start_writes_the_round_s_games_with_the_pairing_on_any_store():
    tournaments, tid, viewers = await cup(4)
    state = await tournaments.act(viewers[0], tid, T.Start())
    tables = state.rounds[0].tables
    for table in tables:
        game = await tournaments.games.load(table.game_id)  # held since the append: no query needed
        assert game.state.status == "active" and [s.player_id for s in game.state.seats] == list(table.players)
    assert await tournaments.store.tournaments_of([t.game_id for t in tables]) == {t.game_id: tid for t in tables}


async def test_a_resent_tournament_command_with_its_key_returns_the_first_result_and_appends_nothing():
    tournaments, tid, viewers = await cup(2)
    late = Viewer(player=(await Players(tournaments.store).register("Late"))[0])
    first = await tournaments.act(late, tid, T.Register(name="Late"), key="k1")
    again = await tournaments.act(late, tid, T.Register(name="Late"), key="k1")
    assert again.version == first.version == await tournaments.store.stream_version(Tournaments.stream_of(tid))


async def test_a_tournament_is_decided_off_the_event_loop_s_thread(monkeypatch):
    """A tournament decision can take seconds (the result that ends a round pairs the next), so the loop runs
    it in a worker thread (a game's decisions, microseconds each, stay on the event loop's)."""
    import threading

    tournaments, tid, viewers = await cup(4)
    threads: list[int] = []
    original = C.decide_rounds  # what the format of rounds decides with

    def recording(*args, **kwargs):
        threads.append(threading.get_ident())
        return original(*args, **kwargs)

    monkeypatch.setattr(C, "decide_rounds", recording)
    await tournaments.act(viewers[0], tid, T.Start())
    assert threads and threading.get_ident() not in threads
