"""SSE at scale: delivery latency from a command's response to every subscriber, and idle queries.

Two `stela serve` processes share one database and Redis; subscribers are spread over both, so
half of every delivery crosses Redis. Subscribers are raw sockets read by an epoll loop in client
worker processes (parsing only `id:` lines); their CPU is reported next to the servers'. A player
sends commands one at a time; for each, the time from its response to each subscriber's receipt
of that version is one sample (an event that arrives before the response counts as 0). Before the
commands, the subscribers sit idle for a while and the database's committed transactions over that
window are counted (`pg_stat_database`), next to the same window before any stream was open (the
servers' own background work): the difference is what idle connections cost.

`python -m bench.sse` runs 1,000 and 10,000 subscribers on one game and 1,000 over 100 games;
`--short` (or `run_short()`, the CI smoke run) runs a hundred on one game, with 1-second statistics waits.
One JSON line per scenario.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import random
import re
import resource
import select
import socket
import time
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import httpx

from bench.common import ADMIN_DSN, REDIS_URL, new_game, percentile, run, scratch_database
from testkit.processes import replicas

ID_LINE = re.compile(rb"(?m)^id: (\d+)\r?$")
HEARTBEAT_SECONDS = "2"
STATS_DELAY = 11.0
# the short mode (CI: the code runs, no figure is kept) waits 1 s: its idle counts may include set-up queries
SHORT_STATS_DELAY = 1.0
SCENARIOS = {"short": [("one game", 1, 100, 3, 1.0)],
             "full": [("one game", 1, 1000, 20, 6.0), ("one game", 1, 10_000, 10, 6.0),
                      ("100 games", 100, 10, 30, 6.0)]}  # name, games, subscribers per game, commands, idle s


class Subscriber:
    """One SSE connection that notes when each `id:` arrives (the first one is the snapshot)."""

    __slots__ = ("sock", "game", "port", "tail", "top", "started")

    def __init__(self, sock: socket.socket, game: int, port: int) -> None:
        self.sock, self.game, self.port = sock, game, port
        self.tail = b""
        self.top = 0  # highest version received
        self.started = False  # the snapshot arrived

    def feed(self, data: bytes, now: float, sink: "Sink") -> None:
        if self.tail:
            data = self.tail + data
        cut = data.rfind(b"\n") + 1
        self.tail = data[cut:]
        for match in ID_LINE.finditer(data, 0, cut):
            if not self.started:
                self.started = True
                sink.ready.value += 1
                continue
            version = int(match.group(1))
            sink.arrivals.append((self.game, version, now, self.port))
            if version > self.top:
                wanted = sink.wanted[self.game]
                if self.top < wanted <= version:
                    sink.caught += 1  # reached this round's version
                self.top = version


class Sink:
    def __init__(self, ready: Any, wanted: Any) -> None:
        self.ready, self.wanted = ready, wanted
        self.arrivals: list[tuple[int, int, float, int]] = []  # game, version, when, server port
        self.caught = 0  # subscribers whose top reached `wanted` of their game (recounted each round)


class Shared:
    """What the main process and one client worker share (each value written by one side only)."""

    def __init__(self, ctx: Any, games: int, wanted: Any, target: Any, stop: Any) -> None:
        self.ready = ctx.Value("l", 0, lock=False)  # worker: subscribers that got their snapshot
        self.caught_up = ctx.Value("l", 0, lock=False)  # worker: subscribers with every version up to wanted[game]
        self.counted = ctx.Value("l", 0, lock=False)  # worker: the target round caught_up was counted for
        self.wanted, self.target, self.stop = wanted, target, stop  # main: versions per game, round, stop flag


def _client_worker(targets: list[tuple[str, int, str, int]], shared: Shared, pipe: Any) -> None:
    """A client process: open `targets` (host, port, path, game), then record arrivals until told to stop.

    A plain epoll loop over non-blocking sockets that sleeps a millisecond after each round of reads, so it
    reads many sockets per wake-up: on a machine it shares with the servers, a client woken once per frame
    would take turns with the server writing it (a context switch per delivery each way). Arrival times are
    taken per read, so they are late by at most that millisecond."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sink = Sink(shared.ready, shared.wanted)
    poller = select.epoll()
    subscribers: dict[int, Subscriber] = {}
    todo = list(reversed(targets))
    waiting = 0  # opened, snapshot not yet received

    def read(timeout: float) -> None:
        nonlocal waiting
        for fd, _ in poller.poll(timeout):
            sub = subscribers[fd]
            data = sub.sock.recv(262144)
            if not data:
                raise ConnectionError("a stream closed" if sub.started else "closed before the snapshot")
            started = sub.started
            sub.feed(data, time.perf_counter(), sink)
            waiting -= sub.started and not started

    deadline = time.monotonic() + 600
    while todo or waiting:  # at most 64 streams opening at once
        while todo and waiting < 64:
            host, port, path, game = todo.pop()
            sock = socket.create_connection((host, port))
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
            sock.setblocking(False)
            subscribers[sock.fileno()] = Subscriber(sock, game, port)
            poller.register(sock.fileno(), select.EPOLLIN)
            waiting += 1
        read(0.05)
        if time.monotonic() > deadline:
            raise TimeoutError(f"{waiting + len(todo)} streams did not start")
    counted, shared_at = -1, 0.0
    while not shared.stop.value:
        read(0.02)
        now = time.monotonic()
        if now - shared_at >= 0.02:
            target = shared.target.value  # read before `wanted`: main sets `wanted` first
            if target != counted:  # a new round: count once, then `feed` counts who catches up
                sink.caught = sum(1 for sub in subscribers.values() if sub.top >= shared.wanted[sub.game])
                counted = target
            shared.caught_up.value = sink.caught
            shared.counted.value = target
            shared_at = now
        time.sleep(0.001)  # let frames gather: the next round reads many sockets
    pipe.send(sink.arrivals)
    for sub in subscribers.values():
        sub.sock.close()


async def _committed(dsn: str) -> int:
    """Transactions the benchmark's database has ended so far (statistics lag by about a second)."""
    conn = await asyncpg.connect(ADMIN_DSN)
    try:
        return await conn.fetchval("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = $1",
                                   dsn.rpartition("/")[2])
    finally:
        await conn.close()


async def _until(predicate: Any, timeout: float) -> bool:
    deadline = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > deadline:
            return False
        await asyncio.sleep(0.002)
    return True


def _descendants(pids: list[int]) -> list[int]:
    """`pids` and their child processes, recursively (a server's workers)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    ppid = int(stat.read().rpartition(")")[2].split()[1])
            except OSError:
                continue
            parents.setdefault(ppid, []).append(int(entry))
    found, todo = [], list(pids)
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += parents.get(pid, [])
    return found


def _cpu_seconds(pids: list[int]) -> float:
    """CPU time (user + system) the processes and their workers have used so far."""
    total = 0
    for pid in _descendants(pids):
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


async def scenario(dsn: str, urls: list[str], pids: list[int], name: str, games: int, per_game: int, commands: int,
                   idle: float, workers: int, stats_delay: float = STATS_DELAY) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=urls[0], timeout=60) as client:
        made = [await new_game(client, "coatl", 2) for _ in range(games)]
        targets = []
        for g, (game_id, _) in enumerate(made):
            for i in range(per_game):
                url = urlsplit(urls[(g * per_game + i) % len(urls)])
                targets.append((url.hostname, url.port, f"/v1/games/{game_id}/stream", g))
        # the same window before any stream is open: what the servers' own background work commits
        await asyncio.sleep(stats_delay)
        before = await _committed(dsn)
        await asyncio.sleep(idle)
        baseline_queries = await _committed(dsn) - before
        ctx = mp.get_context("spawn")
        wanted = ctx.Array("l", games, lock=False)  # per game: the version every subscriber should reach
        target, stop = ctx.Value("l", 0, lock=False), ctx.Value("b", 0, lock=False)
        shared = [Shared(ctx, games, wanted, target, stop) for _ in range(workers)]
        pipes, procs = [], []
        for w in range(workers):
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=_client_worker, args=(targets[w::workers], shared[w], theirs), daemon=True)
            proc.start()
            pipes.append(mine)
            procs.append(proc)
        total = len(targets)
        began = time.perf_counter()
        if not await _until(lambda: sum(w.ready.value for w in shared) >= total, 600):
            raise RuntimeError(f"only {sum(w.ready.value for w in shared)} of {total} subscribers connected")
        connect_s = time.perf_counter() - began
        # PostgreSQL may hold a busy backend's statistics back for up to 10 s (PGSTAT_IDLE_INTERVAL):
        # wait that out so the connections' own set-up queries stay out of the idle window
        await asyncio.sleep(stats_delay)
        before = await _committed(dsn)
        await asyncio.sleep(idle)
        idle_queries = await _committed(dsn) - before
        rnd = random.Random(1)
        responded: dict[tuple[int, int], float] = {}
        cpu, client_cpu = _cpu_seconds(pids), _cpu_seconds([proc.pid for proc in procs])
        for i in range(commands):
            g = i % games
            game_id, players = made[g]
            game = (await client.get(f"/v1/games/{game_id}")).json()
            seat = game["to_act"][0]
            legal = (await client.get(f"/v1/games/{game_id}/legal", headers=players[seat]["headers"])).json()
            resp = await client.post(f"/v1/games/{game_id}/commands", headers=players[seat]["headers"],
                                     json={"command": rnd.choice(legal["commands"])})
            version = resp.json()["version"]
            responded[(g, version)] = time.perf_counter()
            wanted[g] = version  # a subscriber of a game not yet played counts as caught up
            target.value = i + 1
            await _until(lambda: all(w.counted.value == i + 1 for w in shared)
                         and sum(w.caught_up.value for w in shared) >= total, 30)
        cpu = _cpu_seconds(pids) - cpu
        client_cpu = _cpu_seconds([proc.pid for proc in procs]) - client_cpu
        stop.value = 1
        arrivals = [a for pipe in pipes for a in pipe.recv()]
        for proc in procs:
            proc.join(10)
    latencies = [max(0.0, t - responded[(g, v)]) for g, v, t, _ in arrivals if (g, v) in responded]
    # what a delivery's latency is made of: when each server's first frame of a version arrives, and how long
    # its frames keep arriving after that (its fan-out, stretched by the client's reading)
    spans: dict[tuple[int, int, int], list[float]] = {}
    for g, v, t, port in arrivals:
        if (g, v) in responded:
            span = spans.setdefault((g, v, port), [t, t])
            span[0], span[1] = min(span[0], t), max(span[1], t)
    local = urlsplit(urls[0]).port  # the server that takes the commands; the other hears them through Redis
    firsts = {where: [max(0.0, first - responded[(g, v)]) for (g, v, port), (first, _) in spans.items()
                      if (port == local) == (where == "local")] for where in ("local", "remote")}
    spreads = [last - first for first, last in spans.values()]
    return {"bench": "sse", "scenario": name, "games": games, "subscribers": total, "commands": commands,
            "connect_s": round(connect_s, 1), "deliveries": len(latencies), "expected": per_game * commands,
            "p50_ms": round(percentile(latencies, 0.5) * 1000, 1),
            "p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
            "max_ms": round(max(latencies, default=float("nan")) * 1000, 1),
            "first_frame_ms_p50_local": round(percentile(firsts["local"], 0.5) * 1000, 1),
            "first_frame_ms_p50_remote": round(percentile(firsts["remote"], 0.5) * 1000, 1),
            "server_spread_ms_p50": round(percentile(spreads, 0.5) * 1000, 1),
            "server_spread_ms_max": round(max(spreads, default=float("nan")) * 1000, 1),
            "client_busy_ms_per_command": round(client_cpu * 1000 / commands / workers, 1),
            "server_cpu_us_per_delivery": round(cpu * 1e6 / max(1, len(latencies)), 1),
            "client_cpu_us_per_delivery": round(client_cpu * 1e6 / max(1, len(latencies)), 1),
            "idle_window_s": idle, "idle_queries": idle_queries,
            "idle_queries_without_streams": baseline_queries, "load_avg": round(os.getloadavg()[0], 1)}


async def main(short: bool, servers: int = 2, workers: int = 2, only: str | None = None) -> list[dict[str, Any]]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the servers inherit it
    results = []
    for name, games, per_game, commands, idle in SCENARIOS["short" if short else "full"]:
        if only is not None and only != f"{games}x{per_game}":
            continue
        async with scratch_database() as dsn:
            with replicas(dsn, servers, REDIS_URL, STELA_PROJECTOR="off",
                          STELA_HEARTBEAT_SECONDS=HEARTBEAT_SECONDS,
                          STELA_MAX_STREAMS_PER_CLIENT="0", STELA_STREAM_RATE_LIMIT="0",  # one address
                          STELA_DB_POOL_MAX="8") as started:  # commands go one at a time; PostgreSQL is shared
                result = await scenario(dsn, [r.url for r in started], [r.proc.pid for r in started], name, games,
                                        per_game, commands, idle, workers,
                                        SHORT_STATS_DELAY if short else STATS_DELAY)
        result["servers"] = servers
        print(json.dumps(result), flush=True)
        results.append(result)
    return results


def run_short() -> list[dict[str, Any]]:
    """The CI mode: a hundred subscribers on one game (a few seconds)."""
    return run(main(short=True))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--servers", type=int, default=2, help="stela serve processes (sharing Redis)")
    parser.add_argument("--workers", type=int, default=2, help="client processes")
    parser.add_argument("--only", help="one scenario, as GAMESxSUBSCRIBERS_PER_GAME (e.g. 1x10000)")
    args = parser.parse_args()
    run(main(args.short, args.servers, args.workers, args.only))
