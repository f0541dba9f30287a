"""Tournaments on the memory store, through the same Services as on PostgreSQL: a cup over HTTP finished by
the app's own result runner, the organiser's refusals, and the result runner and timeout worker driving a tournament without HTTP (racing runners record
a result once; an abandoned seat is timed out and scored; a result no retry can record is dropped). The
read-model list, the live stream and the all-or-nothing write of a round on PostgreSQL: test_tournaments.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

import domain.tournament as T
from domain.kernel import Outcome
from projections.deadlines import Deadlines
from service.commands.competition import verify_competition
from service.commands.exceptions import Forbidden
from service.commands.pipeline import CommandPipeline, now_ms
from service.commands.players import Players, Viewer
from service.commands.repository import GameRepository
from service.commands.tournaments import Tournaments
from service.live.fanout import Broker
from service.store.memory import MemoryStore
from service.workers.results import ResultRunner
from service.workers.timeouts import TimeoutWorker
from testkit.api import auth, found
from testkit.tally import TALLY


async def player(api: Any, name: str) -> dict[str, str]:
    r = await api.post("/v1/players", json={"name": name})
    assert r.status_code == 201, r.text
    body = r.json()
    return {"id": body["id"], "auth": f"Bearer {body['token']}"}


async def play_round(api: Any, view: dict[str, Any], players: dict[str, dict[str, str]]) -> None:
    """Play every game of the current round of tally to its end (each seat adds 3 in turn)."""
    for table in view["rounds"][-1]["tables"]:
        while True:
            game = (await api.get(f"/v1/games/{table['game_id']}")).json()
            if game["status"] != "active":
                break
            seat = game["to_act"][0]
            who = players[table["players"][seat]]
            r = await api.post(f"/v1/games/{table['game_id']}/commands", headers=auth(who),
                               json={"command": {"type": "tally.Add", "amount": 3}})
            assert r.status_code in (200, 409), r.text


@pytest.fixture
def api(client):
    return client


async def test_a_cup_over_http_is_paired_recorded_and_finished_by_the_services_own_workers(api):
    """The app on the memory store starts the result runner itself: the round's result reaches the cup, which
    ends with its standings, and its log verifies."""
    organiser = await player(api, "Org")
    r = await api.post("/v1/tournaments", headers=auth(organiser), json={
        "kind": "tally", "options": {"target": 9}, "seats": 2, "rounds": 1})
    assert r.status_code == 201, r.text
    tid = r.json()["tournament_id"]
    players = {p["id"]: p for p in [await player(api, n) for n in ("Ann", "Ben")]}
    for p in players.values():
        assert (await api.post(f"/v1/tournaments/{tid}/register", headers=auth(p), json={})).status_code == 200
    view = (await api.post(f"/v1/tournaments/{tid}/start", headers=auth(organiser))).json()
    await play_round(api, view, players)

    async def finished() -> Any:
        v = (await api.get(f"/v1/tournaments/{tid}")).json()
        return v if v["status"] == "finished" else None

    view = await found(finished)
    assert {s["player_id"] for s in view["standings"]} == set(players)
    events = (await api.get(f"/v1/tournaments/{tid}/events")).json()["events"]
    assert verify_competition([(e["type"], e["data"]) for e in events]).ok


async def test_a_tournament_of_an_unknown_kind_or_bad_options_is_refused(api):
    organiser = await player(api, "Org")
    r = await api.post("/v1/tournaments", headers=auth(organiser), json={"kind": "nope", "rounds": 1})
    assert r.status_code == 404
    r = await api.post("/v1/tournaments", headers=auth(organiser), json={"kind": "tally", "options": {"target": 1},
                                                                        "seats": 2, "rounds": 1})
    assert r.status_code == 422 and r.json()["code"] == "tally.bad_options", r.text
    r = await api.post("/v1/tournaments", headers=auth(organiser), json={"kind": "tally", "options": {"tagret": 5},
                                                                        "seats": 2, "rounds": 1})
    assert r.status_code == 400 and "tagret" in r.json()["detail"], r.text
    assert (await api.get("/v1/tournaments/0f6f2c38-0000-4000-8000-000000000000")).status_code == 404


@pytest.mark.parametrize("name", ["Cup\u202e evil", "Bo\u202eevil\u2028x", "\u200b", " \u2060 ", "\u2066Bob\u2069"])
async def test_competition_and_entrant_names_are_checked_as_player_names_are(api, name):
    """A tournament's or an arena's name and the display name an entrant gives meet the player-name rules
    (players.display_name): a bidi override, a line separator, a name of nothing visible is 422 invalid_name."""
    organiser, ann = await player(api, "Org"), await player(api, "Ann")
    for path, body in (("/v1/tournaments", {"rounds": 1}), ("/v1/arenas", {"minutes": 5})):
        r = await api.post(path, headers=auth(organiser), json={"kind": "tally", "name": name, **body})
        assert r.status_code == 422 and r.json()["code"] == "invalid_name", r.text
    tid = (await api.post("/v1/tournaments", headers=auth(organiser), json={"kind": "tally", "rounds": 1})).json()
    r = await api.post(f"/v1/tournaments/{tid['tournament_id']}/register", headers=auth(ann), json={"name": name})
    assert r.status_code == 422 and r.json()["code"] == "invalid_name", r.text
    aid = (await api.post("/v1/arenas", headers=auth(organiser), json={"kind": "tally", "minutes": 5})).json()
    r = await api.post(f"/v1/arenas/{aid['arena_id']}/join", headers=auth(ann), json={"name": name})
    assert r.status_code == 422 and r.json()["code"] == "invalid_name", r.text


async def test_competition_and_entrant_names_are_kept_in_nfc(api):
    organiser, ann = await player(api, "Org"), await player(api, "Ann")
    r = await api.post("/v1/tournaments", headers=auth(organiser),
                       json={"kind": "tally", "name": " Cafe\u0301 Cup ", "rounds": 1})
    assert r.status_code == 201 and r.json()["name"] == "Caf\u00e9 Cup", r.text
    r = await api.post(f"/v1/tournaments/{r.json()['tournament_id']}/register", headers=auth(ann),
                       json={"name": "Zoe\u0308"})
    assert r.status_code == 200 and r.json()["name"] == "Zo\u00eb", r.text


async def test_the_organiser_chooses_the_tie_breaks_and_what_a_bye_is_worth(api):
    organiser = await player(api, "Org")
    r = await api.post("/v1/tournaments", headers=auth(organiser), json={
        "kind": "tally", "seats": 2, "rounds": 2, "bye_points": 0.5, "tiebreaks": ["sonneborn_berger", "buchholz"]})
    assert r.status_code == 201, r.text
    shown = r.json()
    assert shown["tiebreaks"] == ["sonneborn_berger", "buchholz", "draw"] and shown["bye_points"] == 0.5
    assert shown["pairing_rule"] == 5
    for body, status in (({"tiebreaks": ["coin_toss"]}, 400), ({"tiebreaks": ["rating", "rating"]}, 422),
                         ({"bye_points": 0.3}, 422)):
        r = await api.post("/v1/tournaments", headers=auth(organiser), json={"kind": "tally", "rounds": 2, **body})
        assert r.status_code == status, (body, r.text)


@pytest.fixture
async def service() -> AsyncIterator[tuple[Tournaments, Players]]:
    store = MemoryStore()
    yield Tournaments(store, GameRepository(store, {"tally": TALLY}), Broker()), Players(store)


async def started_cup(tournaments_, players, seats: int = 2) -> tuple[str, dict[str, Viewer]]:
    viewers = {}
    for i in range(4):
        p = Viewer(player=(await players.register(f"P{i}"))[0])
        viewers[p.player_id] = p
    organiser = next(iter(viewers.values()))
    cup = await tournaments_.create(organiser, T.CreateTournament(kind="tally", options={"target": 9}, seats=seats,
                                                                  rounds=1))
    for v in viewers.values():
        await tournaments_.act(v, cup.settings.tournament_id, T.Register(name=v.player.name))
    return cup.settings.tournament_id, viewers


async def test_two_runners_racing_over_an_ended_game_record_its_result_once(service):
    tournaments_, players = service
    tid, viewers = await started_cup(tournaments_, players)
    await tournaments_.act(next(iter(viewers.values())), tid, T.Start())
    table = (await tournaments_.load(tid)).state.rounds[0].tables[0]
    pipeline = CommandPipeline(tournaments_.games, tournaments_.store, Broker())
    await pipeline.command(viewers[table.players[0]], table.game_id, {"type": "table.Resign"}, None, None)

    async def drain(runner: ResultRunner) -> None:
        while await runner.step():
            pass

    runners = [ResultRunner(tournaments_.store, tournaments_) for _ in range(2)]
    await asyncio.gather(*(drain(runner) for runner in runners))
    events = await tournaments_.store.read_stream(Tournaments.stream_of(tid))
    recorded = [e for e in events if e.type == "tournament.ResultRecorded" and e.data["game_id"] == table.game_id]
    assert len(recorded) == 1


async def test_a_tournament_game_whose_seat_never_moves_is_timed_out_abandoned_and_scored(service):
    tournaments_, players = service
    viewers = [Viewer(player=(await players.register(f"Q{i}"))[0]) for i in range(2)]
    cup = await tournaments_.create(viewers[0], T.CreateTournament(
        kind="tally", options={"target": 9}, seats=2, rounds=1,
        time_control={"per_move_seconds": 30, "abandon_after": 1}))
    tid = cup.settings.tournament_id
    for v in viewers:
        await tournaments_.act(v, tid, T.Register(name=v.player.name))
    await tournaments_.act(viewers[0], tid, T.Start())
    await tournaments_.store.ensure_tables([Deadlines()])
    worker = TimeoutWorker(tournaments_.store, CommandPipeline(tournaments_.games, tournaments_.store, Broker()),
                           clock=lambda: now_ms() + 3_600_000)
    assert await worker.tick() == 1
    while await ResultRunner(tournaments_.store, tournaments_).step():
        pass
    state = (await tournaments_.load(tid)).state
    assert state.status == "finished"
    table = state.rounds[0].tables[0]
    loser = table.players[table.ranks.index(max(table.ranks))]
    assert state.final[-1] == loser


async def test_a_result_that_can_never_be_recorded_is_dropped_so_the_runner_moves_on(service):
    tournaments_, players = service
    tid, viewers = await started_cup(tournaments_, players)
    await tournaments_.act(next(iter(viewers.values())), tid, T.Start())
    outcome = Outcome(scores=[1, 0], ranks=[1, 2], winners=[0])
    # a game that is not one of the round's (as after an admin ended the round, or a foreign game id)
    runner = ResultRunner(tournaments_.store, tournaments_)
    assert await runner.record(tid, "0f6f2c38-0000-4000-8000-00000000beef", outcome) is False
    with pytest.raises(Forbidden):  # a player's RecordResult is still refused, not silently dropped
        await tournaments_.act(viewers[next(iter(viewers))], tid, T.RecordResult(game_id="x", outcome=outcome))
