"""Bots and the load generator against a real server in a thread, over HTTP and SSE only, through the SDK.

(The SDK's own rules, SSE parsing, retries and resumption, are tested in `clients/python/tests`.)"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from service.edge.app import create_app
from service.bots import add_parsers
from service.bots.bot import Bot, PersonalStreamDiscovery, Seeker
from stela_client import Client, EventFrame, Snapshot, StelaError

from service.bots.client import ApiClient
from service.bots.headtohead import head_to_head
from service.bots.loadtest import Config, Recorder, percentile, report, run
from service.bots.play import TurnPlayer
from service.bots.strategies import make_strategy
from testkit.live import serving



@pytest.fixture
def base_url(server):
    """The worker's shared server (tests/conftest.py)."""
    return server


@pytest.fixture
def own_base_url(settings, games):
    """A server on a database of its own: a bot that joins "the first open game" must find only this
    test's game, not an open table another test of the session left behind."""
    import msgspec

    from tests.conftest import fresh_database

    with fresh_database("stela_bots") as dsn:
        with serving(create_app(msgspec.structs.replace(settings, database_url=dsn), games=games)) as url:
            yield url


async def test_personal_stream_frames_name_games_at_once_and_a_missing_stream_means_polling():
    rest = b'"kind": "tally", "status": "active", "version": 3, "to_act": [0], "your_turn": true}\n\n'
    frames = (b'id: 1\ndata: {"type": "game.started", "game_id": "g1", ' + rest + b': heartbeat\n\n'
              b'id: 2\ndata: {"type": "game.your_turn", "game_id": "g2", ' + rest +
              b'id: 3\ndata: {"type": "game.ended", "game_id": "g1", ' + rest)

    def handler(with_stream: bool):
        def answer(request: httpx.Request) -> httpx.Response:
            if request.url.path == "/v1/players/me/stream":
                if not with_stream:
                    return httpx.Response(404, json={"code": "not_found"})
                return httpx.Response(200, content=frames, headers={"content-type": "text/event-stream"})
            return httpx.Response(200, json={"items": [], "next_cursor": None, "player_id": "p1"})
        return answer

    for with_stream, expected in ((True, {"g2"}), (False, set())):
        async with httpx.AsyncClient(base_url="http://bots.test", transport=httpx.MockTransport(handler(with_stream))) as http:
            discovery = PersonalStreamDiscovery(ApiClient(http, "t"), "p1")
            assert await discovery.live() == set()
            deadline = asyncio.get_running_loop().time() + 10
            while discovery.available is None or discovery.pushed != expected:
                assert asyncio.get_running_loop().time() < deadline
                await asyncio.sleep(0.01)
            assert await discovery.live() == expected and discovery.available is with_stream
            await discovery.close()


def test_percentiles_are_nearest_rank():
    assert percentile([], 0.5) is None
    assert percentile([3.0, 1.0, 2.0, 4.0], 0.5) == 2.0 and percentile(list(range(100)), 0.99) == 98


def test_commands_sent_in_the_minute_after_a_round_starts_are_reported_apart_from_the_rest():
    recorder = Recorder()
    for sent, seconds in ((5.0, 0.9), (50.0, 0.1), (64.0, 0.2), (100.0, 0.3), (101.0, 0.4), (170.0, 0.5)):
        recorder.commanded("g", 0, int(sent), sent, sent + seconds)
    recorder.round_started(0.0)
    recorder.round_started(100.0)  # the first round's minute ends at 60, this one's would at 160
    first, rest = recorder.after_round_start()
    assert first == pytest.approx([0.9, 0.1, 0.3, 0.4]) and rest == pytest.approx([0.2, 0.5])
    out = report(Config(url="", mode="tournament"), recorder, 10.0, 0)
    assert (out["round_start_commands"], out["round_start_ms_p99"], out["steady_ms_p99"]) == (4, 900.0, 500.0)
    assert out["round_start_vs_steady_p99"] == 1.8
    assert "round_start_ms_p99" not in report(Config(url=""), Recorder(), 1.0, 0)  # no rounds: no such figure


async def started(api: httpx.AsyncClient, seats: int, options: dict) -> tuple[str, list[ApiClient]]:
    players = [ApiClient(api) for _ in range(seats)]
    for i, p in enumerate(players):
        await p.register(f"bot{i}")
    game_id = (await players[0].create("tally", seats, options))["id"]
    for p in players[1:]:
        await p.join(game_id)
    await players[0].start(game_id)
    return game_id, players


async def test_a_stream_resumed_with_last_event_id_misses_nothing(base_url):
    async with httpx.AsyncClient(base_url=base_url) as http:
        game_id, players = await started(http, 2, {"target": 500})
        versions: list[int] = []

        async def read(until: int) -> None:
            stream = players[0].sdk.game_stream(game_id, last_event_id=str(versions[-1]) if versions else None)
            async for frame in stream:
                versions.append(frame.game.version if isinstance(frame, Snapshot) else frame.event.version)
                if versions[-1] >= until:
                    await stream.aclose()
                    return

        head = (await players[0].game(game_id))["version"]
        await asyncio.wait_for(read(head), 30)  # the snapshot
        for i in range(4):  # sent while nobody listens: the resumed stream must replay them
            legal = await players[i % 2].sdk.legal(game_id)
            await players[i % 2].sdk.command(game_id, legal.commands[0], legal.version)
        last = (await players[0].game(game_id))["version"]
        await asyncio.wait_for(read(last), 30)
        assert versions == list(range(head, last + 1))


async def test_two_random_bots_play_a_whole_game_over_http_and_sse(own_base_url):
    async with httpx.AsyncClient(base_url=own_base_url, timeout=30) as http:
        a, b = ApiClient(http), ApiClient(http)
        await a.register("Ann")
        await b.register("Bob")
        creator = Bot(a, make_strategy("random", 1), seeker=Seeker(a, create="tally", seats=2,
                                                                    options={"target": 20}), games=1, poll=0.2)
        joiner = Bot(b, make_strategy("random", 2), seeker=Seeker(b, join_open="tally"), games=1, poll=0.2)
        ann, bob = await asyncio.wait_for(asyncio.gather(creator.run(), joiner.run()), 120)
        assert ann[0].game_id == bob[0].game_id and ann[0].status == bob[0].status == "finished"
        game = await a.game(ann[0].game_id)
        assert game["outcome"]["winners"] and {ann[0].seat, bob[0].seat} == {0, 1}
        assert ann[0].commands + bob[0].commands > 0 and ann[0].won != bob[0].won


async def test_a_bot_given_its_player_finds_a_started_game_through_the_read_models(base_url):
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        game_id, players = await started(http, 2, {"target": 12})
        ids = [(await p.game(game_id))["seats"][i]["player_id"] for i, p in enumerate(players)]
        bots = [Bot(p, make_strategy("greedy", i), player_id=ids[i], games=1, poll=0.2)
                for i, p in enumerate(players)]
        results = await asyncio.wait_for(asyncio.gather(*(bot.run() for bot in bots)), 120)
        assert [r[0].game_id for r in results] == [game_id, game_id]
        assert (await players[0].game(game_id))["status"] == "finished"


async def test_turn_players_act_on_the_commands_their_turn_notices_bring(base_url):
    """A `TurnPlayer` asks `GET /legal` once per game, to learn its seat; every later turn starts from
    the legal commands its personal stream's "your turn" carried (no request before the first step)."""
    asked: list[str] = []

    async def count(request: httpx.Request) -> None:
        if request.method == "GET" and request.url.path.endswith("/legal"):
            asked.append(request.url.path)

    async with httpx.AsyncClient(base_url=base_url, timeout=30, event_hooks={"request": [count]}) as http:
        game_id, players = await started(http, 2, {"target": 40})
        bots = [TurnPlayer(p, make_strategy("random", i)) for i, p in enumerate(players)]
        running = [asyncio.create_task(bot.run()) for bot in bots]
        try:
            async with asyncio.timeout(120):
                while (await players[0].game(game_id))["status"] != "finished":
                    await asyncio.sleep(0.1)
        finally:
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
    turns = sum(bot.commands for bot in bots)
    assert turns >= 7 and not any(bot.errors for bot in bots)  # a turn adds 6 at the most
    assert len(asked) == 2, asked  # one per player and game: the seat


async def test_a_tiny_loadtest_completes_without_errors_and_reports_its_numbers(base_url):
    config = Config(url=base_url, players=4, seats=2, kind="tally", games=3, concurrency=2,
                    options={"target": 15}, seed=3)
    out = await asyncio.wait_for(run(config), 120)
    assert out["errors"] == 0 and out["games"] == 3 and out["error_samples"] == []
    assert out["commands"] > 0 and out["commands_per_s"] > 0
    assert out["command_ms_p50"] is not None and out["sse_ms_p99"] is not None and out["deliveries"] > 0


async def test_greedy_plays_a_hosted_kind_over_http_judging_from_the_view_it_reads(base_url):
    out = await asyncio.wait_for(head_to_head(base_url, "coatl", 2, seed=5), 300)
    assert out["errors"] == 0 and out["greedy"] + out["random"] + out["draws"] == 2
    assert out["commands"] > 0 and out["greedy_blind_choices"] == 0  # every choice had its seat's view


def test_the_loadtest_command_prints_a_json_report_and_exits_zero(base_url, capsys):
    import argparse

    parser = argparse.ArgumentParser()
    add_parsers(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["loadtest", "--url", base_url, "--players", "2", "--kind", "tally",
                              "--games", "1", "--option", "target=10"])
    assert args.fn(args) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["errors"] == 0 and out["games"] == 1


def test_two_stela_bot_commands_find_each_other_and_print_their_results(own_base_url, capsys):
    base_url = own_base_url  # the joiner takes the first open game: only this test's may be there
    import argparse
    from concurrent.futures import ThreadPoolExecutor

    tokens = [httpx.post(f"{base_url}/v1/players", json={"name": n}).json()["token"] for n in ("Cy", "Di")]
    parser = argparse.ArgumentParser()
    add_parsers(parser.add_subparsers(dest="command"))
    common = ["--url", base_url, "--games", "1", "--poll", "0.2"]
    creator = parser.parse_args(["bot", "--token", tokens[0], "--create", "tally", "--seats", "2",
                                 "--option", "target=12", "--strategy", "greedy", "--seed", "1", *common])
    joiner = parser.parse_args(["bot", "--token", tokens[1], "--join-open", "tally", "--seed", "2", *common])
    with ThreadPoolExecutor(2) as pool:
        runs = [pool.submit(args.fn, args) for args in (creator, joiner)]
        assert [run.result(timeout=120) for run in runs] == [0, 0]
    summaries = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"strategy"' in line]
    assert sorted(s["strategy"] for s in summaries) == ["greedy", "random"]
    assert [s["games"] for s in summaries] == [1, 1] and sum(s["won"] for s in summaries) == 1


async def test_the_bots_client_over_the_sdks_aiohttp_transport_speaks_the_api(base_url):
    """`ApiClient` over the SDK's default transport (what the load generator uses): JSON bodies and queries,
    problems as typed errors with their code, and a game's stream read through its first frames."""
    async with Client(base_url) as sdk:
        api = ApiClient(sdk)
        await api.register("Ana")
        game = await api.create("tally", 2, {"target": 9})
        with pytest.raises(StelaError) as refused:
            await api.join(game["id"], 0)
        assert refused.value.status == 409 and refused.value.code
        listed: list = []
        deadline = asyncio.get_running_loop().time() + 30
        while not listed:  # the list is a read model: the projector catches up in its own time
            assert asyncio.get_running_loop().time() < deadline, "the game never appeared in the list"
            listed = await api.games(kind="tally", limit=5)  # params reach the query string
            await asyncio.sleep(0.02)
        assert {g["kind"] for g in listed} == {"tally"}
        stream = sdk.game_stream(game["id"])
        first = await asyncio.wait_for(anext(stream), 30)
        await stream.aclose()
        assert isinstance(first, Snapshot) and first.game.id == game["id"]
        assert not isinstance(first, EventFrame)


def test_the_stela_command_line_builds_without_the_sdk_and_names_the_load_generators_modes():
    """`stela serve` must start where only the service is installed (the container image has no SDK)."""
    import subprocess
    import sys

    from service.bots import MODES
    from service.bots.loadtest import MODES as SCHEDULES

    assert set(MODES) == set(SCHEDULES)
    code = ("import sys; sys.modules['stela_client'] = None\n"
            "from service.cli.main import parser\nparser().parse_args(['serve'])\n"
            "assert 'service.bots.loadtest' not in sys.modules")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


async def test_a_thinking_bot_waits_before_each_choice_and_chooses_as_it_would_without(monkeypatch):
    """`--think-ms`: each choice waits the think time times a factor from 0.5 to 1.5 (its own generator), then
    is the inner strategy's own; a config without thinking keeps the strategy as it is."""
    import random

    from service.bots import loadtest
    from service.bots.strategies import RandomStrategy

    waited: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waited.append(seconds)

    legal = {"seat": 0, "version": 3, "commands": [{"type": f"c{i}"} for i in range(7)]}
    plain = RandomStrategy(random.Random("s"))
    thinking = loadtest.Thinking(RandomStrategy(random.Random("s")), 0.4, random.Random("t"))
    monkeypatch.setattr(loadtest.asyncio, "sleep", fake_sleep)  # nothing else awaits meanwhile
    chosen = [await thinking.choose(None, "g", legal) for _ in range(50)]  # type: ignore[arg-type]
    monkeypatch.undo()
    assert chosen == [await plain.choose(None, "g", legal) for _ in range(50)]  # type: ignore[arg-type]
    assert len(waited) == 50 and all(0.2 <= w <= 0.6 for w in waited) and max(waited) - min(waited) > 0.2
    assert thinking.name == "random"
    assert loadtest._thinking(Config(url="x"), 0, plain) is plain
    assert isinstance(loadtest._thinking(Config(url="x", think=0.1), 0, plain), loadtest.Thinking)
