"""Command throughput, POST only, against a bare Litestar + one-insert anchor in the same run.

Each of N games has its own keep-alive connection and posts Tally `Add(1)` for the seat to act,
never reading first (see bench.server). Measured, each against a fresh database:
- the anchor (bench.anchor) and Stela with the shipped defaults at 1, 16 and 64 games, and Stela
  with a bare configuration (no request logging, no rate limiting, no embedded projector) and with
  the shipped defaults plus Redis (shared budgets and fan-out, as deployed) at 16 games, so the
  defaults' cost shows as ratios (`stela_defaults_vs_bare`, `stela_defaults_redis_vs_bare`); these servers run side by side and take
  turns, five times over (`--repeat`); each one's median run is reported, and each ratio is the
  median of the ratios within one round of turns (a machine whose speed drifts over tens of
  seconds moves both sides of a round alike);
- the same bare configuration on granian instead of uvicorn (uvloop + httptools), at 16 games;
- one worker process against two behind one port (both with Redis fan-out) at 16 games.
Then real games (bench.steps: Tikal, Cóatl, Tobago and Gold Mine mixed) at the same levels, the
shipped defaults against four anchors and the bare configuration (`stela_fast`) in alternating turns
(bench.anchor: litestar, `bare` with no framework, `game`, which plays the same games by their rules and
appends with the hash chain, and `litestar_game`, the same answers behind Litestar's cheapest routes): POST
only (`real_post_vs_anchor`, `real_post_vs_game_anchor`, ...) and the whole client step, `GET /legal`
then the POST with `include=view,legal` (`full_step_vs_...`), each anchor answering the same two
requests, `/legal` from memory as Stela answers from its cache. `*_litestar_ceiling` is the framework's
own limit: the Litestar game anchor over the game anchor, the most `*_vs_game_anchor` any server whose
routes take their parameters and bodies through Litestar could show, whatever it did or left out
(2026-11-30, 16 games: 0.77 POST and 0.74 step in three rounds at load 1.4-3.0, 0.83 and 0.83 in five at
load 0.3-2.5, with Stela at 0.95 and 0.79, then 0.83 and 0.84, of the Litestar game anchor).
Every figure carries `/proc/loadavg`.
`--real` runs these real-game rounds alone (a few minutes instead of a quarter of an hour); above 16 games
they leave out the two Tally anchors (six pools of 20 would pass PostgreSQL's 100 connections).
`--real --think MS` asks instead what a command costs below saturation: every server of the real rounds
takes POSTs saturated, then paced (each game waiting 0.5-1.5 times MS after each command, so every server
is offered the same load), in turns; `paced_cpu_vs_saturated` is its CPU a command paced over saturated.
Measured 2026-11-30, 16 games, think 20 ms (about 620 commands/s offered, half of Stela's saturated
rate), three rounds, load 1.1-2.2: the framework-free Tally anchor 1.64, the Litestar Tally anchor 1.60,
the game anchor 1.62, the Litestar game anchor 1.30, Stela's shipped defaults 1.50, its fast settings
1.61 (rounds within ±0.3). Below saturation every server pays a request's wake-ups, reads and writes
alone, which a busy one shares: none here came under 1.3 times, with or without a framework (the Litestar
game anchor's median was 1.30, its rounds 1.05-1.54).
Printed as JSON lines: commands/s, p50/p99 latency, the server's CPU per command (all its
processes), the load generator's own CPU per command and its share of a core (on a 2-core
machine a load generator near 1.0 caps what two server workers can show), the whole machine's
CPU per command (PostgreSQL and Redis included) and the throughput its cores would allow at
that cost (`machine_ceiling_commands_per_s`: no number of workers can pass it), and the ratios.
`two_vs_one_worker` comes with `machine_allows`: that ceiling at one worker's cost over one
worker's throughput, the most any number of workers could show on this machine.

The anchor is served and holds its connections as Stela does (bench.anchor). Until 2026-11-28 its pool sent
asyncpg's reset query each time a connection came back; measured that day in one run (16 games, real
games, five alternating rounds, load 0.6-2.4): the anchor as it was 1,315 steps/s at 0.635 ms of server
CPU a step, held as the store holds its connections 1,703 steps/s at 0.538 ms, Stela 916 steps/s at
0.981 ms: `real_post_vs_anchor` 0.72 against the old anchor, 0.57 against the honest one. Every ratio
against the anchor recorded before that day is flattered by about that much. Served on the same
HTTP protocol as Stela (one write a response) the anchor gained another ~3% (1,832 against 1,775
steps/s, 0.496 against 0.520 ms in five alternating rounds the same day).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from typing import Iterator

import httpx
import msgspec
import psutil

from bench.common import REDIS_URL, percentile, run, scratch_database
from bench.loadgen import Connection, timed
from bench.steps import SEED, Step, scripts
from testkit.api import started_game as new_game
from testkit.api import player
from testkit.live import free_port

BODY = msgspec.json.encode({"command": {"type": "tally.Add", "amount": 1}})
TARGET = 1000  # Tally's largest target: a game lasts 999 commands
MIXED = scripts()  # the real games' mix, each with the commands its seed makes legal
# the bare configuration: nothing optional on the request path
BARE = {"STELA_LOG_LEVEL": "warning", "STELA_RATE_LIMIT": "0", "STELA_PROJECTOR": "off"}
# the shipped defaults, except a rate limit high enough that the benchmark's one client is never refused
DEFAULTS = {"STELA_RATE_LIMIT": "100000000"}
# the anchors of Tally, left out of the real rounds above 16 games: six servers' pools of 20 connections each
# would ask for more than PostgreSQL's 100 there (their ratios at 64 games are the Tally rounds')
TALLY_ANCHORS = ("anchor", "bare_anchor")


@contextmanager
def process(args: list[str], env: dict[str, str], url: str) -> Iterator[tuple[str, int]]:
    """A server process, ready to answer `url`/healthz; yields (url, pid); stopped at the end."""
    log = tempfile.TemporaryFile()
    # a metrics port of its own: servers of several benchmarks (or worktrees) at once never meet on the default
    env = {"STELA_METRICS_PORT": str(free_port()), **env}
    proc = subprocess.Popen(args, env={**os.environ, **env}, stderr=log, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120  # generous: `bench/run.py --short` starts several servers at once
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise RuntimeError(f"{args} did not start: {log.read()[-2000:].decode(errors='replace')}")
            time.sleep(0.1)
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def stela(dsn: str, redis: bool = False, **env: str) -> Iterator[tuple[str, int]]:
    port = free_port()
    environ = {"DATABASE_URL": dsn, "STELA_PORT": str(port), **env}
    if redis:
        environ["REDIS_URL"] = REDIS_URL
    else:
        os.environ.pop("REDIS_URL", None)
    return process([sys.executable, "-m", "bench.server"], environ, f"http://127.0.0.1:{port}")


def anchor(dsn: str, which: str = "litestar", **env: str) -> Iterator[tuple[str, int]]:
    """An anchor of bench.anchor: `litestar`, `bare` (no framework), `game` (the real games' rules) or
    `litestar_game` (those behind Litestar)."""
    port = free_port()
    return process([sys.executable, "-m", "bench.anchor", str(port), dsn, which], env, f"http://127.0.0.1:{port}")


def loadavg() -> str:
    """The machine's load when a figure was taken (other work shares its cores): /proc/loadavg's first three."""
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


async def tally_game(client: httpx.AsyncClient) -> tuple[str, list[dict[str, str]]]:
    """A started two-seat Tally game; returns its command path and each seat's headers."""
    players = [await player(client, f"P{i}") for i in range(2)]
    resp = await client.post("/v1/games", json={"kind": "tally", "seats": 2, "options": {"target": TARGET}},
                             headers=players[0]["headers"])
    game_id = resp.json()["id"]
    assert (await client.post(f"/v1/games/{game_id}/join", json={}, headers=players[1]["headers"])).status_code == 200
    assert (await client.post(f"/v1/games/{game_id}/start", headers=players[0]["headers"])).status_code == 200
    return f"/v1/games/{game_id}/commands", [p["headers"] for p in players]


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a server process and its workers so far (comparable on a busy machine)."""
    root = psutil.Process(pid)
    total = 0.0
    for proc in [root, *root.children(recursive=True)]:
        try:
            times = proc.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def machine_busy_seconds() -> float:
    """CPU time every process of the machine has used so far (PostgreSQL, Redis, the load generator, ...)."""
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)


def own_cpu_seconds() -> float:
    """This process's CPU so far: the load generator's own cost, which shares the machine's cores."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def load(url: str, pid: int, games: int, seconds: float, stela_games: bool, warmup: float) -> dict:
    """`games` connections posting commands for `seconds` (after `warmup`); throughput and latency."""
    latencies: list[float] = []
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:

        async def new_game(i: int) -> tuple[str, list[dict[str, str]]]:
            if stela_games:
                return await tally_game(client)
            return f"/v1/games/anchor-{i}-{time.perf_counter_ns()}/commands", [{}, {}]

        setups = await asyncio.gather(*(new_game(i) for i in range(games)))
        conns = [await Connection(url).open() for _ in range(games)]
        began = time.perf_counter() + warmup
        stop = began + seconds
        cpu: list[float] = []
        own: list[float] = []
        busy: list[float] = []

        async def mark_cpu() -> None:
            await asyncio.sleep(warmup)
            cpu.append(cpu_seconds(pid))
            own.append(own_cpu_seconds())
            busy.append(machine_busy_seconds())

        async def worker(i: int) -> None:
            path, seats = setups[i]
            sent = 0
            while time.perf_counter() < stop:
                sink = latencies if time.perf_counter() >= began else []
                status, body = await timed(conns[i], path, BODY, seats[sent % 2], sink)
                assert status == 200, body
                sent += 1
                if sent >= TARGET - 2:
                    path, seats = await new_game(i)
                    sent = 0

        await asyncio.gather(mark_cpu(), *(worker(i) for i in range(games)))
        elapsed = time.perf_counter() - began
        cpu.append(cpu_seconds(pid))
        own.append(own_cpu_seconds())
        busy.append(machine_busy_seconds())
        for conn in conns:
            await conn.close()
    return {"games": games, "commands": len(latencies), "commands_per_s": round(len(latencies) / elapsed, 1),
            "p50_ms": round(percentile(latencies, 0.5) * 1000, 2),
            "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
            "server_cpu_ms_per_command": round((cpu[1] - cpu[0]) * 1000 / max(1, len(latencies)), 3),
            "loadgen_cpu_ms_per_command": round((own[1] - own[0]) * 1000 / max(1, len(latencies)), 3),
            "loadgen_cpu_share": round((own[1] - own[0]) / elapsed, 2),
            # every process's CPU per command, and what the machine's cores could answer at that cost
            "machine_cpu_ms_per_command": round((busy[1] - busy[0]) * 1000 / max(1, len(latencies)), 3),
            "machine_ceiling_commands_per_s": round(len(latencies) * (os.cpu_count() or 1)
                                                    / max(1e-9, busy[1] - busy[0]), 1), "loadavg": loadavg()}


async def real_game(client: httpx.AsyncClient, i: int) -> tuple[str, list[dict[str, str]], tuple[Step, ...]]:
    """A started game of the mix (the i-th), on a `STELA_BENCH_SEED` server; its path, seats and script."""
    kind, options, seats, steps = MIXED[i % len(MIXED)]
    game_id, players = await new_game(client, kind, seats, options)
    return f"/v1/games/{game_id}", [p["headers"] for p in players], steps


async def load_real(url: str, pid: int, games: int, seconds: float, warmup: float, mode: str,
                    stela_games: bool, think: float = 0.0) -> dict:
    """`games` connections playing real games (bench.steps) for `seconds`: `mode` "post" posts each
    scripted command; "step" reads `/legal` for the seat to act first and posts with include=view,legal.
    With `think` (seconds) each connection waits between half and one and a half times that after each
    command, so the server is offered the same load whatever its speed (below its saturation)."""
    pace = random.Random(games)
    latencies: list[float] = []
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:

        async def game(i: int) -> tuple[str, list[dict[str, str]], tuple[Step, ...]]:
            if stela_games:
                return await real_game(client, i)
            kind, _, _, steps = MIXED[i % len(MIXED)]  # (the game anchor plays the kind its id names)
            path = f"/v1/games/anchor-{kind}-{i}-{time.perf_counter_ns()}"
            await client.get(path + "/legal")  # the game anchor starts it now, as Stela's game is made here
            return path, [{}] * 6, steps

        setups = await asyncio.gather(*(game(i) for i in range(games)))
        conns = [await Connection(url).open() for _ in range(games)]
        began = time.perf_counter() + warmup
        stop = began + seconds
        marks: list[tuple[float, float, float]] = []

        async def mark() -> None:
            await asyncio.sleep(warmup)
            marks.append((cpu_seconds(pid), own_cpu_seconds(), machine_busy_seconds()))

        async def worker(i: int) -> None:
            path, seats, steps = setups[i]
            done = 0
            while time.perf_counter() < stop:
                step = steps[done]
                headers = seats[step.seat]
                start = time.perf_counter()
                if mode == "step":
                    status, body = await conns[i].get(path + "/legal", headers)
                    assert status == 200, body
                    if done < 3 and stela_games:
                        assert step.wire in msgspec.json.decode(body)["commands"], (step.wire, body[:300])
                    status, body = await conns[i].post(path + "/commands?include=view,legal", step.body, headers)
                else:
                    status, body = await conns[i].post(path + "/commands", step.body, headers)
                assert status == 200, body
                if start >= began:
                    latencies.append(time.perf_counter() - start)
                done += 1
                if think:
                    await asyncio.sleep(think * pace.uniform(0.5, 1.5))
                if done == len(steps):
                    path, seats, steps = await game(i)
                    done = 0

        await asyncio.gather(mark(), *(worker(i) for i in range(games)))
        elapsed = time.perf_counter() - began
        marks.append((cpu_seconds(pid), own_cpu_seconds(), machine_busy_seconds()))
        for conn in conns:
            await conn.close()
    n = max(1, len(latencies))
    (cpu0, own0, busy0), (cpu1, own1, busy1) = marks
    return {"games": games, "mode": mode, **({"think_ms": think * 1000} if think else {}), "steps": len(latencies),
            "steps_per_s": round(len(latencies) / elapsed, 1),
            "p50_ms": round(percentile(latencies, 0.5) * 1000, 2),
            "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
            "server_cpu_ms_per_step": round((cpu1 - cpu0) * 1000 / n, 3),
            "loadgen_cpu_share": round((own1 - own0) / elapsed, 2),
            "machine_cpu_ms_per_step": round((busy1 - busy0) * 1000 / n, 3), "loadavg": loadavg()}


ANCHORS = {"anchor": "litestar", "bare_anchor": "bare", "game_anchor": "game",
           "litestar_game_anchor": "litestar_game"}


def real_servers(stack: ExitStack, dsns: tuple[str, str, str], short: bool) -> list[tuple[str, str, int, bool]]:
    """The real rounds' servers, started on `stack`, as (name, url, pid, plays Stela's games): the anchors on
    the first database (the game anchor alone when `short`), the shipped defaults on the second and, unless
    `short`, the fast settings on the third (`*_vs_stela_fast`: what the defaults' extras cost)."""
    dsn_a, dsn_d, dsn_f = dsns
    names = ["game_anchor"] if short else list(ANCHORS)
    servers = [(name, *stack.enter_context(anchor(dsn_a, ANCHORS[name])), False) for name in names]
    servers.append(("stela_defaults", *stack.enter_context(stela(dsn_d, STELA_BENCH_SEED=SEED.hex(), **DEFAULTS)),
                    True))
    if not short:
        servers.append(("stela_fast", *stack.enter_context(stela(dsn_f, STELA_BENCH_SEED=SEED.hex(), **BARE)), True))
    return servers


async def real_rounds(levels: list[int], repeat: int, seconds: float, warmup: float, short: bool,
                      think: float = 0.0) -> list[dict]:
    """Real games, POST only and the whole client step, the shipped defaults and the anchors (bench.anchor)
    in alternating turns; per level and anchor `real_post_vs_<anchor>` and `full_step_vs_<anchor>` (medians
    of the per-round ratios, each round's load beside it). The short mode measures the game anchor alone.
    With `think`, POSTs only, saturated and paced (`load_real`): per server the CPU a command costs paced
    over saturated (`paced_cpu_vs_saturated`, the median of the rounds' ratios) and the paced p99."""
    if think:
        return await paced_rounds(levels, repeat, seconds, warmup, think)
    out: list[dict] = []
    runs: dict[tuple[str, str, int], list[dict]] = {}
    async with scratch_database() as dsn_a, scratch_database() as dsn_d, scratch_database() as dsn_f:
        with ExitStack() as stack:
            servers = real_servers(stack, (dsn_a, dsn_d, dsn_f), short)
            names = [name for name, *_ in servers if name != "stela_defaults"]
            for _ in range(repeat):
                for games in levels:
                    for mode in ("post", "step"):
                        for name, url, pid, real in servers:
                            if games > 16 and name in TALLY_ANCHORS:
                                continue
                            found = {"server": name, **await load_real(url, pid, games, seconds, warmup, mode, real)}
                            runs.setdefault((name, mode, games), []).append(found)
                            print(json.dumps({"bench": "http", **found}), file=sys.stderr)
    for games in levels:
        for name in names:
            if games > 16 and name in TALLY_ANCHORS:
                continue
            for mode, label in (("post", "real_post"), ("step", "full_step")):
                pairs = list(zip(runs[("stela_defaults", mode, games)], runs[(name, mode, games)]))
                rounds = [s["steps_per_s"] / a["steps_per_s"] for s, a in pairs if a["steps_per_s"]]  # (none: no figure)
                stela_run = sorted(runs[("stela_defaults", mode, games)], key=lambda r: r["steps_per_s"])[len(pairs) // 2]
                anchor_run = sorted(runs[(name, mode, games)], key=lambda r: r["steps_per_s"])[len(pairs) // 2]
                out.append({f"{label}_vs_{name}": round(statistics.median(rounds), 2) if rounds else None,
                            "rounds": [round(r, 2) for r in rounds], "loadavg": [s["loadavg"] for s, _ in pairs],
                            "games": games, "steps_per_s": stela_run["steps_per_s"], "p99_ms": stela_run["p99_ms"],
                            "anchor_steps_per_s": anchor_run["steps_per_s"], "anchor_p99_ms": anchor_run["p99_ms"],
                            "server_cpu_ms_per_step": stela_run["server_cpu_ms_per_step"],
                            "anchor_cpu_ms_per_step": anchor_run["server_cpu_ms_per_step"]})
        if not short:  # the most `*_vs_game_anchor` a server whose routes go through Litestar could show
            for mode, label in (("post", "real_post"), ("step", "full_step")):
                pairs = list(zip(runs[("litestar_game_anchor", mode, games)], runs[("game_anchor", mode, games)]))
                rounds = [f["steps_per_s"] / a["steps_per_s"] for f, a in pairs if a["steps_per_s"]]
                out.append({f"{label}_litestar_ceiling": round(statistics.median(rounds), 2) if rounds else None,
                            "rounds": [round(r, 2) for r in rounds], "games": games})
    return out


async def paced_rounds(levels: list[int], repeat: int, seconds: float, warmup: float, think: float) -> list[dict]:
    """`real_rounds` with `think`: every server of the real rounds, saturated then paced, in turns."""
    out: list[dict] = []
    runs: dict[tuple[str, float, int], list[dict]] = {}
    async with scratch_database() as dsn_a, scratch_database() as dsn_d, scratch_database() as dsn_f:
        with ExitStack() as stack:
            servers = real_servers(stack, (dsn_a, dsn_d, dsn_f), False)
            for _ in range(repeat):
                for games in levels:
                    for paced in (0.0, think):
                        for name, url, pid, real in servers:
                            if games > 16 and name in TALLY_ANCHORS:
                                continue
                            found = {"server": name,
                                     **await load_real(url, pid, games, seconds, warmup, "post", real, paced)}
                            runs.setdefault((name, paced, games), []).append(found)
                            print(json.dumps({"bench": "http", **found}), file=sys.stderr)
    for games in levels:
        for name, *_ in servers:
            if games > 16 and name in TALLY_ANCHORS:
                continue
            pairs = list(zip(runs[(name, think, games)], runs[(name, 0.0, games)]))
            rounds = [p["server_cpu_ms_per_step"] / s["server_cpu_ms_per_step"] for p, s in pairs]
            paced_run = sorted(runs[(name, think, games)], key=lambda r: r["server_cpu_ms_per_step"])[len(pairs) // 2]
            out.append({"server": name, "paced_cpu_vs_saturated": round(statistics.median(rounds), 2),
                        "rounds": [round(r, 2) for r in rounds], "games": games, "think_ms": think * 1000,
                        "paced_steps_per_s": paced_run["steps_per_s"], "paced_p99_ms": paced_run["p99_ms"],
                        "paced_cpu_ms_per_step": paced_run["server_cpu_ms_per_step"],
                        "loadavg": [p["loadavg"] for p, _ in pairs]})
    return out


async def main(short: bool, levels: list[int], repeat: int, real: bool = False, think: float = 0.0) -> list[dict]:
    seconds, warmup = (0.5, 0.1) if short else (4.0, 1.0)
    if real:
        return await real_rounds(levels, repeat, seconds, warmup, short, think)
    out: list[dict] = []

    async def measure(name: str, server: Iterator[str], stela_games: bool, at: list[int]) -> dict[int, dict]:
        found = {}
        with server as (url, pid):
            for games in at:
                found[games] = {"server": name, **await load(url, pid, games, seconds, stela_games, warmup)}
                out.append(found[games])
                print(json.dumps({"bench": "http", **found[games]}), file=sys.stderr)
        return found

    # The anchor, the shipped defaults and the bare configuration run side by side, taking turns
    # `repeat` times at each level; each one's median run is reported, and each ratio is the median
    # of the ratios within a round. (Run one after another, a machine whose speed drifts moved the
    # anchor alone by a quarter between runs.)
    runs: dict[tuple[str, int], list[dict]] = {}
    async with scratch_database() as dsn_a, scratch_database() as dsn_d, scratch_database() as dsn_b, \
            scratch_database() as dsn_r:
        with anchor(dsn_a) as (url_a, pid_a), stela(dsn_d, **DEFAULTS) as (url_d, pid_d), \
                stela(dsn_b, **BARE) as (url_b, pid_b), stela(dsn_r, redis=True, **DEFAULTS) as (url_r, pid_r):
            for _ in range(repeat):
                for games in levels:
                    turns = [("anchor", url_a, pid_a, False), ("stela_defaults", url_d, pid_d, True)]
                    if games == 16:
                        turns += [("stela_bare", url_b, pid_b, True), ("stela_defaults_redis", url_r, pid_r, True)]
                    for name, url, pid, stela_games in turns:
                        runs.setdefault((name, games), []).append(
                            {"server": name, **await load(url, pid, games, seconds, stela_games, warmup)})
    median: dict[tuple[str, int], dict] = {}
    for (name, games), found in runs.items():
        ranked = sorted(found, key=lambda r: r["commands_per_s"])
        median[(name, games)] = {**ranked[len(ranked) // 2],
                                 "runs_commands_per_s": [r["commands_per_s"] for r in found]}
        out.append(median[(name, games)])
        print(json.dumps({"bench": "http", **median[(name, games)]}), file=sys.stderr)

    def ratio(name: str, other: str, games: int) -> dict:
        rounds = [a["commands_per_s"] / b["commands_per_s"]
                  for a, b in zip(runs[(name, games)], runs[(other, games)])]
        return {f"{name}_vs_{other.removeprefix('stela_')}": round(statistics.median(rounds), 2),
                "rounds": [round(r, 2) for r in rounds], "loadavg": [a["loadavg"] for a in runs[(name, games)]],
                "games": games}

    for games in levels:
        out.append(ratio("stela_defaults", "anchor", games))
    out += await real_rounds(levels, repeat, seconds, warmup, short)
    if 16 in levels:
        bare = {16: median[("stela_bare", 16)]}
        out.append(ratio("stela_defaults", "stela_bare", 16))
        out.append(ratio("stela_defaults_redis", "stela_bare", 16))  # as deployed: budgets and fan-out in Redis
    if not short and 16 in levels:  # the server choice, not a regression check
        async with scratch_database() as dsn:
            granian = await measure("stela_bare_granian", stela(dsn, STELA_SERVER="granian", **BARE), True, [16])
        out.append({"granian_vs_uvicorn": round(granian[16]["commands_per_s"] / bare[16]["commands_per_s"], 2),
                    "games": 16})
    async with scratch_database() as dsn:
        one = await measure("stela_redis_1_worker", stela(dsn, redis=True, **DEFAULTS), True, [16])
    async with scratch_database() as dsn:
        two = await measure("stela_redis_2_workers", stela(dsn, redis=True, STELA_WORKERS="2", **DEFAULTS),
                            True, [16])
    # the most two workers could reach here: the machine's cores at one worker's cost per command (with
    # PostgreSQL, Redis and the load generator on the same cores, below 2 however fast the server is)
    out.append({"two_vs_one_worker": round(two[16]["commands_per_s"] / one[16]["commands_per_s"], 2),
                "machine_allows": round(one[16]["machine_ceiling_commands_per_s"] / one[16]["commands_per_s"], 2),
                "games": 16})
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--games", type=int, nargs="*",
                        help="load levels in games (default 1 16 64; 16 alone with --short: the level every "
                             "configuration and ratio runs at)")
    parser.add_argument("--repeat", type=int, help="turns each server takes at each level (default 5; 1 with --short)")
    parser.add_argument("--real", action="store_true",
                        help="the real games' rounds only (the shipped defaults, the fast settings and the anchors)")
    parser.add_argument("--think", type=float, default=0.0, metavar="MS",
                        help="with --real: POSTs saturated and paced (each game waiting about MS between its "
                             "commands), each server's CPU a command paced over saturated")
    args = parser.parse_args()
    if args.think and not args.real:
        parser.error("--think goes with --real")
    levels = args.games or ([16] if args.short else [1, 16, 64])
    for line in run(main(args.short, levels, args.repeat or (1 if args.short else 5), args.real,
                         args.think / 1000)):
        print(json.dumps({"bench": "http", **line}))
