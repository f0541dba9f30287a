"""Bots on request: a game created with bot seats is played to the end by a bot worker over HTTP (its log
verifies), several workers never run one bot twice, a restarted worker resumes its bots, a worker whose
lease ran out loses the bot's token, and a tournament's organiser adds bots that play its games."""

from __future__ import annotations

import asyncio
import random

import httpx
import msgspec
import pytest

from domain.catalog import GAMES
from service.bots.runner import BotWorker, Weakened
from service.bots.strategies import make_strategy
from service.commands.accounts_bots import SHORT_NAMES, STRATEGIES, BotSpec, bot_name
from service.commands.verify import parse_ndjson, verify_log
from service.edge.app import create_app
from tests.conftest import fresh_database
from tests.service.commands.test_accounts import unique
from tests.service.live.test_sse import wait_for
from testkit.api import player
from testkit.live import serving
from testkit.tally import TALLY

ADMIN = "admin-secret"  # the tests' settings


@pytest.fixture
def base(settings, games):
    """A server on a database of its own: a worker leases the oldest free bots first (50 at most), so
    bots other tests left unfinished in a shared database (the contract fuzzers make dozens) would
    fill its lease and starve this test's bots."""
    with fresh_database("stela_bot_requests") as dsn:
        with serving(create_app(msgspec.structs.replace(settings, database_url=dsn), games=games)) as url:
            yield url


async def bot_game(http: httpx.AsyncClient, bots: list[dict], join: bool = False, seats: int = 2) -> tuple[str, dict]:
    who = await player(http, unique())
    resp = await http.post("/v1/games", json={"kind": "tally", "seats": seats, "options": {"target": 12},
                                              "join": join, "bots": bots}, headers=who["headers"])
    assert resp.status_code == 201, resp.text
    return resp.json()["id"], who


async def finished(http: httpx.AsyncClient, game_id: str) -> bool:
    return (await http.get(f"/v1/games/{game_id}")).json()["status"] == "finished"


async def until_finished(http: httpx.AsyncClient, game_ids: list[str], timeout: float = 300) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not all([await finished(http, g) for g in game_ids]):
        assert asyncio.get_running_loop().time() < deadline, "the bots did not finish their games"
        await asyncio.sleep(0.2)


def test_bots_get_distinct_names_of_their_kind_and_a_short_name():
    taken = {"Greedy bot Ada"}
    for _ in range(len(SHORT_NAMES) + 20):  # more bots than short names: numbered once all are taken
        name = bot_name(BotSpec(strategy="greedy"), taken)
        assert name.startswith("Greedy bot ") and name not in taken and len(name) <= 24
        taken.add(name)
    assert bot_name(BotSpec(strategy="random"), taken).startswith("Random bot ")


def test_the_service_offers_exactly_the_bots_strategies():
    for name in STRATEGIES:
        assert make_strategy(name, 1).name == name
    with pytest.raises(ValueError):
        make_strategy("cunning", 1)


def test_a_weakened_strategy_plays_its_own_choice_strength_times_in_five():
    commands = [{"type": "tally.Add", "amount": n} for n in (1, 2, 3)]
    greedy_like = type("Fixed", (), {"name": "fixed", "decide": lambda self, v, s, c: c[2]})()
    for strength, low, high in ((1, 0.25, 0.5), (5, 1.0, 1.0)):
        weak = Weakened(greedy_like, strength, random.Random(7))
        share = sum(weak.decide({}, 0, commands) == commands[2] for _ in range(2000)) / 2000
        assert low <= share <= high, (strength, share)  # 1/5 own + 4/5 * 1/3 random = 0.47 at strength 1


async def test_a_game_of_bots_is_played_to_the_end_by_a_worker_and_verifies(base):
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        game_id, _ = await bot_game(http, [{"strategy": "greedy", "strength": 5}, {"strategy": "random", "strength": 1}])
        game = (await http.get(f"/v1/games/{game_id}")).json()
        assert [s["name"].split()[:2] for s in game["seats"]] == [["Greedy", "bot"], ["Random", "bot"]]
        worker = BotWorker(http, ADMIN, "w1", lease_seconds=6)
        stop = asyncio.Event()
        running = asyncio.create_task(worker.run(stop))
        await until_finished(http, [game_id])
        await wait_for(lambda: len(worker.played) == 2, timeout=60)
        stop.set()
        await running
        export = await http.get(f"/v1/games/{game_id}/export")
        report = verify_log(parse_ndjson(export.content), {**GAMES, "tally": TALLY})
        assert report.ok, report.problems
        assert await BotWorker(http, ADMIN, "w2").step() == []  # done bots are leased no more


async def test_two_workers_never_run_the_same_bot(base):
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        games = [(await bot_game(http, [{"strategy": "random", "strength": 3}] * 2))[0] for _ in range(3)]
        one, two = BotWorker(http, ADMIN, "one", lease_seconds=30), BotWorker(http, ADMIN, "two", lease_seconds=30)
        firsts = await asyncio.gather(one.step(), two.step())
        ids = [{lease["bot_id"] for lease in leases} for leases in firsts]
        assert ids[0].isdisjoint(ids[1]) and len(ids[0] | ids[1]) >= 6
        await asyncio.gather(one.step(), two.step())
        assert set(one._tasks).isdisjoint(two._tasks)
        await until_finished(http, games)
        await asyncio.gather(one.close(), two.close())


async def test_a_restarted_worker_resumes_its_bots_and_a_stale_one_loses_them(base):
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        who = await player(http, unique())
        game_id, _ = await bot_game(http, [{"strategy": "random", "strength": 2}] * 2)
        first = BotWorker(http, ADMIN, "steady", lease_seconds=5)
        leases = await first.step()
        await first.close()  # the process dies mid-game: its bots are still leased to "steady"
        old_tokens = [lease["token"] for lease in leases if lease["bot_id"]]
        assert await BotWorker(http, ADMIN, "other", lease_seconds=5).step() == []  # not free: still leased
        again = BotWorker(http, ADMIN, "steady", lease_seconds=30)  # the same worker, restarted
        resumed = await again.step()
        assert {lease["bot_id"] for lease in resumed} == {lease["bot_id"] for lease in leases}
        assert all(lease["token"] for lease in resumed)
        for token in old_tokens:  # the dead process's tokens work no more
            assert (await http.get("/v1/players/me", headers={"Authorization": f"Bearer {token}"})).status_code == 401
        await until_finished(http, [game_id])
        await again.close()
        assert (await http.get("/v1/players/me", headers=who["headers"])).status_code == 200


async def test_a_player_plays_against_a_bot_that_starts_the_game_when_full(base):
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        game_id, who = await bot_game(http, [{"strategy": "greedy", "strength": 3}], join=True)
        worker = BotWorker(http, ADMIN, "vs-human", lease_seconds=30)
        await worker.step()
        rnd = random.Random(3)
        deadline = asyncio.get_running_loop().time() + 120
        while not await finished(http, game_id):
            assert asyncio.get_running_loop().time() < deadline
            legal = (await http.get(f"/v1/games/{game_id}/legal", headers=who["headers"])).json()
            if legal["commands"]:
                await http.post(f"/v1/games/{game_id}/commands", headers=who["headers"],
                                json={"command": rnd.choice(legal["commands"]), "expected_version": legal["version"]})
            else:
                await asyncio.sleep(0.05)
        await worker.close()


async def test_bad_bot_requests_are_refused_before_any_game_exists(pg_client):
    client = pg_client  # "no game exists" is read from the game list, a PostgreSQL read model
    who = await player(client, unique())
    for bots, status, code in (([{"strategy": "cunning"}], 400, "invalid_request"),
                               ([{"strength": 9}], 400, "invalid_request"), ([{}, {}], 422, "invalid_bot")):
        resp = await client.post("/v1/games", json={"kind": "tally", "seats": 2, "bots": bots}, headers=who["headers"])
        assert (resp.status_code, resp.json()["code"]) == (status, code), bots
    assert (await client.get("/v1/games?player=" + who["id"])).json()["items"] == []
    lease = await client.post("/v1/bots/leases", json={"worker": "x"}, headers=who["headers"])
    assert lease.status_code == 403  # only a bot worker (the admin token) leases bots
    assert (await client.post("/v1/bots/leases", json={"worker": "x"})).status_code == 401


async def test_an_organiser_adds_bots_that_play_the_tournament(base):
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        organiser = await player(http, unique("Org"))
        made = await http.post("/v1/tournaments", json={"name": "Bots cup", "kind": "tally", "seats": 2, "rounds": 1,
                                                         "options": {"target": 10}}, headers=organiser["headers"])
        assert made.status_code == 201, made.text
        tid = made.json()["tournament_id"]
        stranger = await player(http, unique())
        refused = await http.post(f"/v1/tournaments/{tid}/bots", json={"count": 2}, headers=stranger["headers"])
        assert refused.status_code == 403
        added = await http.post(f"/v1/tournaments/{tid}/bots", json={"count": 2, "strategy": "greedy", "strength": 4},
                                headers=organiser["headers"])
        assert added.status_code == 200, added.text
        assert added.json()["players"] == 2
        more = await http.post(f"/v1/tournaments/{tid}/bots", json={"count": 2, "strategy": "greedy"},
                               headers=organiser["headers"])
        names = [s["name"] for s in more.json()["standings"]]
        assert len(set(names)) == 4 and all(n.startswith("Greedy bot ") for n in names), names
        assert (await http.post(f"/v1/tournaments/{tid}/start", headers=organiser["headers"])).status_code == 200
        worker = BotWorker(http, ADMIN, "cup", lease_seconds=30)
        stop = asyncio.Event()
        running = asyncio.create_task(worker.run(stop))
        deadline = asyncio.get_running_loop().time() + 180
        while (await http.get(f"/v1/tournaments/{tid}")).json()["status"] != "finished":
            assert asyncio.get_running_loop().time() < deadline, "the tournament did not finish"
            await asyncio.sleep(0.5)
        stop.set()
        await running


async def test_a_refused_request_for_tournament_bots_creates_no_bot(base):
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        organiser, stranger = await player(http, unique("Org")), await player(http, unique())
        made = await http.post("/v1/tournaments", json={"name": "Closed cup", "kind": "tally", "seats": 2,
                                                         "rounds": 1}, headers=organiser["headers"])
        tid = made.json()["tournament_id"]
        refused = await http.post(f"/v1/tournaments/{tid}/bots", json={"count": 3}, headers=stranger["headers"])
        assert refused.status_code == 403
        assert await BotWorker(http, ADMIN, "orphans", lease_seconds=30).step() == []  # no bot left behind
        assert (await http.get(f"/v1/tournaments/{tid}")).json()["players"] == 0


async def test_sixty_bots_idle_in_unfilled_games_do_not_keep_a_new_bot_game_waiting(base):
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        for _ in range(60):  # each waits for a third player who never comes
            await bot_game(http, [{"strategy": "random", "strength": 3}], join=True, seats=3)
        game_id, who = await bot_game(http, [{"strategy": "greedy", "strength": 3}], join=True)
        worker = BotWorker(http, ADMIN, "busy", lease_seconds=30)  # leases 50 at most
        stop = asyncio.Event()
        running = asyncio.create_task(worker.run(stop))
        deadline = asyncio.get_running_loop().time() + 60
        while (await http.get(f"/v1/games/{game_id}")).json()["status"] != "active":  # the bot starts it
            assert asyncio.get_running_loop().time() < deadline, "the new bot game was not served"
            await asyncio.sleep(0.1)
        assert set(worker._tasks) == {await bot_of(http, game_id, who)}  # the idle bots hold no lease
        stop.set()
        await running


async def bot_of(http: httpx.AsyncClient, game_id: str, who: dict) -> str:
    """The id of the bot seated beside `who` (a bot's id is its player id)."""
    seats = (await http.get(f"/v1/games/{game_id}")).json()["seats"]
    return next(s["player_id"] for s in seats if s["player_id"] != who["id"])
