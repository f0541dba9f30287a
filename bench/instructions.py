"""Instructions the server process spends on a request, counted by valgrind, Stela against the game anchor.

Seconds on a shared machine move with whatever else runs there (on the 2-core machine of 2026-11-30 the same
loop took 2.2-3.0 times as long as the day before, and alternating rounds of `bench.http` still scattered by
±15%); an instruction count does not: valgrind counts what the process executes, the same for the same
code, inputs and environment, however busy the machine. (Valgrind's cachegrind with no cache simulation counts
the same total as callgrind in about a third of the time.) It leaves out what the kernel and the database spend
(a socket write, the database's side of a statement), which `bench.http` still shows.

Each subject is an ASGI app called directly in its own process (no server, no socket; the same driver for
both), one request at a time, playing bench.steps' real games (Tikal, Cóatl, Tobago and Gold Mine) on a
scratch PostgreSQL database:
- `stela`: the shipped defaults (bench.server's app with the benchmark's seed: access log, request budgets
  counted in process, the embedded projector, no Redis), its players and games made through the API first;
- `game_anchor`: bench.anchor_asgi.game, which decides and folds the same commands with the same rules and
  appends them with the hash chain in one statement;
- `litestar_game_anchor`: the game anchor's answers behind Litestar's cheapest routes (bench.anchor's
  `create_game`), so `*_litestar_ceiling` (the game anchor's count over it) is the most `*_vs_game_anchor`
  a server could show whose routes take their parameters and bodies through the framework, and
  `*_vs_litestar_game_anchor` shows what Stela's own platform work (tokens, seats, idempotency, budgets,
  logs, fan-out) costs beyond it.
Each runs under `valgrind --tool=cachegrind` three times, after the same set-up: playing nothing, `--commands`
POSTs, then those POSTs and as many client steps (`GET /legal` for the seat to act, then the POST with
`include=view,legal`); the differences over `--commands` are the instructions a POST and a step take, with
start-up and set-up cancelled. `*_vs_game_anchor` is the anchor's count over Stela's: what a server bound by
its own CPU would show as throughput against the anchor's.

    python -m bench.instructions [--commands 128] [--short]

`--short` (CI) counts POSTs only, 8 of them: it proves the benchmark runs and prints its numbers (so few that
start-up's own variation shows in them). A run takes about half a minute of start-up under valgrind, two at a
time; `bench/run.py --short` runs it beside the benchmarks that time themselves, which it cannot disturb.

The embedded projector is the one part whose count moves between runs: it projects what arrived since its last
look, so how many looks a run makes depends on timing (64 POSTs: 1.96 and 2.19 million instructions a POST in
two runs of the shipped defaults; 1.73 and 1.71 million with `STELA_PROJECTOR=off`). One request at a time,
nothing is batched: the store's group commit, the projector's linger and the coalesced writes that spread
their costs over many commands at load do not here, so this is the cost of a command at low load, where a
fixed cost per command shows whole.

Measured 2026-11-30 at 65977de: 64 requests a subject (callgrind), Stela 1,960,050 instructions a POST and
2,877,566 a step, the game anchor 787,332 and 1,207,379: `post_vs_game_anchor` 0.402, `step_vs_game_anchor`
0.42; the default 128 (cachegrind, 2 min in all), Stela 1,718,075 and 2,478,367, the anchor 734,493 and
1,159,732: 0.428 and 0.468. Later that day, with the Litestar game anchor (128 requests, 2 min 41 s in all):
Stela 1,764,141 a POST and 2,485,508 a step, the game anchor 732,450 and 1,163,632, the Litestar game anchor
993,935 and 1,602,912: `post_litestar_ceiling` 0.737 and `step_litestar_ceiling` 0.726, Stela at 0.563 and
0.645 of the Litestar game anchor. With the projector off 1,734,855, and also without the access log
1,578,896 (one run each): the rest of the difference is the request's
way through the framework, the edge (budgets, body checks, the caller), the command loop and the store.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from bench.common import run, scratch_database
from bench.steps import MIX, SEED, Step, scripts
from testkit.live import lifespan

SUBJECTS = ("stela", "game_anchor", "litestar_game_anchor")
Game = tuple[str, list[dict[str, str]], tuple[Step, ...]]  # (path, each seat's headers, script)


async def asgi(app: Any, method: str, path: str, query: bytes, body: bytes, headers: dict[str, str]) -> bytes:
    """One request through `app`; its body (asserted 200)."""
    status, answer = await request(app, method, path, query, body, headers)
    assert status == 200, (status, answer[:300])
    return answer


async def request(app: Any, method: str, path: str, query: bytes, body: bytes,
                  headers: dict[str, str]) -> tuple[int, bytes]:
    """One request through `app` as a client on a socket would send it: its status and body."""
    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": path, "raw_path": path.encode(), "root_path": "",
             "query_string": query, "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 50000),
             "headers": [(b"host", b"127.0.0.1:8000"), (b"accept", b"*/*"),
                         *([(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())] if body else []),
                         *((k.lower().encode(), v.encode()) for k, v in headers.items())]}
    sent = False
    status, chunks = 0, []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.Event().wait()  # (nothing more: a disconnect never comes)
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        else:
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


async def play(app: Any, games: list[Game], posts: int, steps: int) -> None:
    """`posts` scripted commands, then `steps` client steps, round-robin over `games`."""
    done = [0] * len(games)
    for i in range(posts + steps):
        path, seats, script = games[i % len(games)]
        step = script[done[i % len(games)]]
        done[i % len(games)] += 1
        headers = seats[step.seat]
        if i >= posts:
            await asgi(app, "GET", path + "/legal", b"", b"", headers)
        await asgi(app, "POST", path + "/commands", b"include=view,legal" if i >= posts else b"", step.body, headers)


async def stela(dsn: str, posts: int, steps: int) -> None:
    from bench.server import create_app
    from testkit.api import started_game

    os.environ.update({"DATABASE_URL": dsn, "STELA_BENCH_SEED": SEED.hex(), "STELA_RATE_LIMIT": "100000000"})
    os.environ.pop("REDIS_URL", None)
    app = create_app()
    async with lifespan(app), httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://bench",
                                                timeout=600) as client:
        games: list[Game] = []
        for (kind, options, seats), (_, _, _, script) in zip(MIX, scripts()):
            game_id, players = await started_game(client, kind, seats, options)
            games.append((f"/v1/games/{game_id}", [p["headers"] for p in players], script))
        await play(app, games, posts, steps)


async def game_anchor(dsn: str, posts: int, steps: int) -> None:
    from bench.anchor_asgi import game

    await _anchor_games(game(dsn), posts, steps)


async def _anchor_games(app: Any, posts: int, steps: int) -> None:
    """The mix's games played on an anchor, each started by its first request."""
    async with lifespan(app):
        # (ids of one width, new in each run: the runs share the database)
        games = [(f"/v1/games/anchor-{kind}-{i}-{os.getpid():08d}", [{}] * seats, script)
                 for i, (kind, _, seats, script) in enumerate(scripts())]
        for path, seats, _ in games:
            await asgi(app, "GET", path + "/legal", b"", b"", seats[0])  # the anchor starts a game it has not seen
        await play(app, games, posts, steps)


async def litestar_game_anchor(dsn: str, posts: int, steps: int) -> None:
    from bench.anchor import create_game

    await _anchor_games(create_game(dsn), posts, steps)


def counted(subject: str, dsn: str, posts: int, steps: int) -> int:
    """The instructions of one child process playing `posts` and `steps` as `subject` (valgrind's total)."""
    done = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, "-m", "bench.instructions", "--child", subject, dsn, str(posts), str(steps)],
        capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}, timeout=1800)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"{subject} {posts}/{steps} failed: {done.stdout[-1500:]} {done.stderr[-1500:]}")
    return int(found.group(1).replace(",", ""))


async def main(commands: int, short: bool) -> list[dict[str, Any]]:
    rounds = [(0, 0), (commands, 0)] if short else [(0, 0), (commands, 0), (commands, commands)]
    out: list[dict[str, Any]] = []
    totals: dict[tuple[str, int, int], int] = {}
    async with scratch_database() as dsn_s, scratch_database() as dsn_a, scratch_database() as dsn_l:
        dsns = {"stela": dsn_s, "game_anchor": dsn_a, "litestar_game_anchor": dsn_l}
        # each subject's runs one after another (a database each), two subjects at a time
        def subject_runs(subject: str) -> None:
            for posts, steps in rounds:
                totals[subject, posts, steps] = counted(subject, dsns[subject], posts, steps)

        with ThreadPoolExecutor(2) as pool:
            await asyncio.gather(*(asyncio.wrap_future(pool.submit(subject_runs, s)) for s in SUBJECTS))
    per: dict[tuple[str, str], float] = {}
    for subject in SUBJECTS:
        per[subject, "post"] = (totals[subject, commands, 0] - totals[subject, 0, 0]) / commands
        if not short:
            per[subject, "step"] = (totals[subject, commands, commands] - totals[subject, commands, 0]) / commands
        for (who, mode), count in per.items():
            if who == subject:
                out.append({"subject": subject, "mode": mode, "instructions": round(count), "requests": commands})
    for mode in ("post",) if short else ("post", "step"):
        anchor, framed, stela = per["game_anchor", mode], per["litestar_game_anchor", mode], per["stela", mode]
        out.append({f"{mode}_vs_game_anchor": round(anchor / stela, 3),
                    f"{mode}_vs_litestar_game_anchor": round(framed / stela, 3),
                    f"{mode}_litestar_ceiling": round(anchor / framed, 3)})
    return out


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        subject, dsn, posts, steps = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
        asyncio.run({"stela": stela, "game_anchor": game_anchor,
                     "litestar_game_anchor": litestar_game_anchor}[subject](dsn, posts, steps))
        sys.exit(0)
    parser = argparse.ArgumentParser()
    parser.add_argument("--commands", type=int, default=128, help="POSTs (and steps) counted per subject")
    parser.add_argument("--short", action="store_true")
    args = parser.parse_args()
    most = min(len(script) for *_, script in scripts()) * len(MIX) // 2  # POSTs and steps, none past a game's end
    if not 0 < args.commands <= most:
        parser.error(f"--commands takes 1 to {most}: each game of the mix plays its script once")
    for line in run(main(8 if args.short else args.commands, args.short)):
        print(json.dumps({"bench": "instructions", **line, **({"smoke": True} if args.short else {})}))
