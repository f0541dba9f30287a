"""Bots play with the README's two commands: `stela serve` as `make run` starts it (embedded PostgreSQL, no
REDIS_URL, no admin token, no worker apart) runs a bot worker in process, so a player who asks for a bot
opponent plays a whole game against it through the API; `stela serve --no-bots` runs none, and a
`stela bot-worker` run apart plays the bots instead.

The times from creating the game to the bot's start and from each hand-over to the bot's answer are
printed (`-s` shows them), and per kind the seconds from asking for a game against a bot to the bot's start and
to its first move (issue 48's target: within 10 s on a fresh clone); not asserted: the machine may be busy."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from stela_client import Client
from stela_client.errors import VersionConflict

from testkit.live import free_port, wait_healthy

pytestmark = pytest.mark.xdist_group("embedded")

STELA = str(Path(sys.executable).with_name("stela"))
GAME_DEADLINE = 600.0  # seconds a whole game may take on a busy machine


@pytest.fixture
def home():
    """A folder for the server's data and log outside pytest's own temporary folders: a pytest session
    starting meanwhile (another run on the machine) takes back the traversal rights that the embedded
    PostgreSQL, which runs as a user of its own, needs on every folder above its data."""
    with tempfile.TemporaryDirectory(prefix="stela-e2e-bots-", ignore_cleanup_errors=True) as folder:
        yield Path(folder)


def make_run_env(folder: Path) -> tuple[dict[str, str], str]:
    """`make run`'s environment (nothing configured) on free ports and a data folder of its own; the URL."""
    port = free_port()
    env = {**os.environ, "STELA_PORT": str(port), "STELA_METRICS_PORT": "0", "STELA_DATA_DIR": str(folder / "data")}
    for name in ("DATABASE_URL", "REDIS_URL", "STELA_ADMIN_TOKEN", "STELA_BOTS", "STELA_PROJECTOR"):
        env.pop(name, None)
    return env, f"http://127.0.0.1:{port}"


async def wait_until(check, what: str, timeout: float = GAME_DEADLINE):
    """Poll `check()` (a coroutine function) until it answers something true; that answer."""
    deadline = time.monotonic() + timeout
    while not (found := await check()):
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.1)
    return found


async def play_against_a_bot(url: str, kind: str = "coatl") -> dict:
    """Create a game against one bot and play it to the end with random legal commands; what was seen."""
    rnd = random.Random(48)
    async with Client(url) as me:
        await me.register("Ann")
        asked = time.monotonic()
        game = await me.json("POST", "/v1/games", body={"kind": kind, "seats": 2, "bots": [{"strength": 2}]})
        game_id, seen = game["id"], {"answers": []}

        async def started():
            return (await me.game(game_id)).status != "open"

        await wait_until(started, "the bot did not start the game")
        seen["started_after"] = time.monotonic() - asked
        handed = time.monotonic()
        while (state := await me.game(game_id)).status == "active":
            legal = await me.legal(game_id)
            if not legal.commands:  # the bot's turn: wait for its answer
                await asyncio.sleep(0.05)
                continue
            if handed is not None:
                seen["answers"].append(time.monotonic() - handed)
                handed = None
            try:
                result = await me.command(game_id, rnd.choice(legal.commands), legal.version)
            except VersionConflict:  # the bot moved meanwhile (Coatl's prophecies are kept by both at once)
                continue
            if result.status == "active" and legal.seat not in result.to_act:
                handed = time.monotonic()
            assert time.monotonic() - asked < GAME_DEADLINE, "the game against the bot did not end"
        seen["status"], seen["seats"] = state.status, [s.name for s in state.seats]
        return seen


async def first_moves_of_every_kind(url: str) -> dict[str, dict[str, float]]:
    """For each kind, as "Play against a bot" asks (a game of two, one bot of the default strategy): the seconds
    from asking to the bot's start and to the bot's first move. The player answers each of its own turns at
    once with a random legal command (its own requests' seconds, the `own` part, are what the player adds)."""
    out = {}
    rnd = random.Random(48)
    async with Client(url) as me:
        await me.register("Bea")
        for kind in [k.kind for k in await me.kinds()]:
            asked = time.monotonic()
            game = await me.json("POST", "/v1/games", body={"kind": kind, "seats": 2, "bots": [{}]})
            game_id = game["id"]

            async def started(game_id: str = game_id) -> bool:
                return (await me.game(game_id)).status != "open"

            await wait_until(started, f"the bot did not start the {kind} game")
            start, own, mine = time.monotonic() - asked, 0.0, (await me.game(game_id)).version
            while (now := await me.game(game_id)).version <= mine:  # every version past `mine` is the bot's
                legal = await me.legal(game_id)
                if legal.commands and legal.version == now.version:
                    sent = time.monotonic()
                    try:
                        mine = (await me.command(game_id, rnd.choice(legal.commands), legal.version)).version
                    except VersionConflict:  # the bot moved meanwhile
                        pass
                    own += time.monotonic() - sent
                    continue
                assert time.monotonic() - asked < GAME_DEADLINE, f"the bot never moved in {kind}"
                await asyncio.sleep(0.05)
            out[kind] = {"start": round(start, 2), "first_move": round(time.monotonic() - asked, 2),
                         "own": round(own, 2)}
    return out


def serving(args: list[str], env: dict[str, str], url: str, log: Path) -> subprocess.Popen:
    with open(log, "wb") as sink:
        server = subprocess.Popen([STELA, *args], env=env, cwd=log.parent, stdout=sink, stderr=sink)
    try:
        wait_healthy(url, server, timeout=180)  # the first start runs initdb
    except BaseException:
        server.terminate()
        server.wait(60)
        raise
    return server


def test_make_run_plays_a_whole_game_against_a_bot(home):
    env, url = make_run_env(home)
    server = serving(["serve"], env, url, home / "serve.log")
    try:
        seen = asyncio.run(play_against_a_bot(url))
        firsts = asyncio.run(first_moves_of_every_kind(url))
    finally:
        server.terminate()
        server.wait(60)
    assert seen["status"] == "finished", seen
    assert seen["answers"], "the bot never had a turn"
    print(f"\nbot started the game {seen['started_after']:.2f} s after it was asked for; first answer "
          f"{seen['answers'][0]:.2f} s, slowest {max(seen['answers']):.2f} s over {len(seen['answers'])} turns; "
          f"seconds per kind from asking to the bot's start, to its first move, and the player's own part: {firsts}")
    assert set(firsts) >= {"tikal", "coatl", "tobago", "goldmine"}


def test_serve_with_no_bots_leaves_the_bots_to_a_worker_run_apart(home):
    env, url = make_run_env(home)
    server = serving(["serve", "--no-bots"], env, url, home / "serve.log")
    worker = None
    try:
        async def ask() -> str:
            async with Client(url) as me:
                await me.register("Ann")
                game = await me.json("POST", "/v1/games", body={"kind": "coatl", "seats": 2, "join": False,
                                                                "bots": [{}, {}]})
                return game["id"]

        game_id = asyncio.run(ask())
        token = (home / "data" / "admin-token").read_text().strip()  # the embedded mode's, for workers apart
        worker = subprocess.Popen([STELA, "bot-worker", "--url", url, "--token", token, "--name", "apart"], env=env,
                                  cwd=home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        async def started() -> bool:
            async with Client(url) as anyone:
                return (await anyone.game(game_id)).status != "open"

        asyncio.run(wait_until(started, "the worker run apart did not play the bots"))
    finally:
        for process in (worker, server):
            if process is not None:
                process.terminate()
                process.wait(60)
    assert b"bot_worker_started" not in (home / "serve.log").read_bytes()  # serve ran none of its own
