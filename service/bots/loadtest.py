"""The load generator: N registered bot players play games over HTTP + SSE against a running service.

It measures what a client sees: commands per second, command latency (request sent to response
read), SSE delivery latency (from a command's response to the moment each other seat's stream
delivered that version; a frame that beats the response counts as 0) and errors (any failed game
or request that retries did not absorb; 409 version conflicts are normal and counted apart).

The schedule is a `Mode`: `free` seats players round-robin at `games` tables of `seats`. A
`tournament` mode plugs in here once `/v1/tournaments` exists: register the players to a
tournament, start it, and let each player's `Bot` discover its tables round after round.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from service.bots.client import ApiClient
from service.bots.play import SeatPlayer
from service.bots.strategies import RandomStrategy


@dataclass
class Recorder:
    """Observer of every seat: latencies, deliveries, conflicts, errors."""

    command_seconds: list[float] = field(default_factory=list)
    answered: dict[tuple[str, int], tuple[float, int]] = field(default_factory=dict)
    arrivals: list[tuple[str, int | None, int, float]] = field(default_factory=list)
    conflicts: int = 0
    errors: list[str] = field(default_factory=list)
    games_done: int = 0

    def commanded(self, game_id: str, seat: int, version: int, sent: float, answered: float) -> None:
        self.command_seconds.append(answered - sent)
        self.answered[(game_id, version)] = (answered, seat)

    def delivered(self, game_id: str, seat: int | None, version: int, at: float) -> None:
        self.arrivals.append((game_id, seat, version, at))

    def conflicted(self) -> None:
        self.conflicts += 1

    def delivery_seconds(self) -> list[float]:
        out = []
        for game_id, seat, version, at in self.arrivals:
            answer = self.answered.get((game_id, version))
            if answer is not None and answer[1] != seat:
                out.append(max(0.0, at - answer[0]))
        return out


def percentile(values: list[float], q: float) -> float | None:
    """The `q`-quantile (0..1) by nearest rank, or None without values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


@dataclass(frozen=True)
class Config:
    url: str
    players: int = 8
    seats: int = 2
    kind: str = "coatl"
    games: int = 4
    concurrency: int = 4
    options: dict[str, Any] = field(default_factory=dict)
    seed: int = 1
    mode: str = "free"


def report(config: Config, recorder: Recorder, seconds: float, throttled: int) -> dict[str, Any]:
    ms = lambda v: None if v is None else round(v * 1000, 2)  # noqa: E731
    commands, deliveries = recorder.command_seconds, recorder.delivery_seconds()
    return {"mode": config.mode, "kind": config.kind, "players": config.players, "seats": config.seats,
            "games": recorder.games_done, "concurrency": config.concurrency, "seconds": round(seconds, 2),
            "commands": len(commands), "commands_per_s": round(len(commands) / max(seconds, 1e-9), 1),
            "command_ms_p50": ms(percentile(commands, 0.5)), "command_ms_p99": ms(percentile(commands, 0.99)),
            "deliveries": len(deliveries), "sse_ms_p50": ms(percentile(deliveries, 0.5)),
            "sse_ms_p99": ms(percentile(deliveries, 0.99)), "conflicts": recorder.conflicts,
            "throttled": throttled, "errors": len(recorder.errors)}


async def _register(http: httpx.AsyncClient, count: int, width: int) -> list[ApiClient]:
    clients = [ApiClient(http) for _ in range(count)]
    gate = asyncio.Semaphore(width)

    async def one(i: int) -> None:
        async with gate:
            await clients[i].register(f"bot-{i}")

    await asyncio.gather(*(one(i) for i in range(count)))
    return clients


async def free_games(config: Config, clients: list[ApiClient], recorder: Recorder,
                     tick: Callable[[], None]) -> None:
    """`config.games` tables of `config.seats`, players seated round-robin, `concurrency` at a time."""
    gate = asyncio.Semaphore(config.concurrency)

    async def table(index: int) -> None:
        seated = [clients[(index * config.seats + s) % len(clients)] for s in range(config.seats)]
        async with gate:
            try:
                game_id = (await seated[0].create(config.kind, config.seats, config.options))["id"]
                for seat, api in enumerate(seated[1:], start=1):
                    await api.join(game_id, seat)
                await seated[0].start(game_id)
                rngs = [random.Random(f"{config.seed}:{index}:{s}") for s in range(config.seats)]
                await asyncio.gather(*(SeatPlayer(api, game_id, RandomStrategy(rng), recorder).run()
                                       for api, rng in zip(seated, rngs)))
            except Exception as exc:  # noqa: BLE001 - every failure is counted and reported
                recorder.errors.append(f"table {index}: {type(exc).__name__}: {exc}")
            finally:
                recorder.games_done += 1
                tick()

    await asyncio.gather(*(table(i) for i in range(config.games)))


MODES: dict[str, Callable[[Config, list[ApiClient], Recorder, Callable[[], None]], Awaitable[None]]] = {
    "free": free_games,
    # "tournament": register the players to a /v1/tournaments tournament and run one Bot per player.
}


async def run(config: Config, progress: Any = None) -> dict[str, Any]:
    """Run the load and return the report; `progress` is a rich Progress (or None)."""
    if config.seats > config.players:
        raise ValueError("need at least as many players as seats")
    streams = config.concurrency * config.seats
    limits = httpx.Limits(max_connections=streams * 2 + 20, max_keepalive_connections=streams + 10)
    recorder = Recorder()
    async with httpx.AsyncClient(base_url=config.url, limits=limits, timeout=30.0) as http:
        clients = await _register(http, config.players, max(config.concurrency, 1))
        task = progress.add_task(f"{config.kind} games", total=config.games) if progress is not None else None

        def tick() -> None:
            if progress is not None:
                progress.update(task, completed=recorder.games_done,
                                description=f"{config.kind} games, {len(recorder.command_seconds)} commands")

        start = time.perf_counter()
        await MODES[config.mode](config, clients, recorder, tick)
        seconds = time.perf_counter() - start
    throttled = sum(c.counters.throttled for c in clients)
    out = report(config, recorder, seconds, throttled)
    out["error_samples"] = recorder.errors[:5]
    return out
