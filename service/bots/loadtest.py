"""The load generator: N registered bot players play games over HTTP + SSE against a running service.

It measures what a client sees: commands per second, command latency (request sent to response
read), SSE delivery latency (from a command's response to the moment each other seat's stream
delivered that version; a frame that beats the response counts as 0) and errors (any failed game
or request that retries did not absorb; 409 version conflicts are normal and counted apart).

The schedule is a `Mode`: `free` seats players round-robin at `games` tables of `seats`;
`tournament` has the first player organise a Swiss of `rounds` rounds at tables of `seats`
(with `time_control` on every game), registers every player over HTTP, starts it, and lets each
player play the games the service pairs it in, learnt from its personal stream (one SSE
connection per player, not per seat), until the tournament stream says it has ended; the service
creates the games and advances the rounds by itself. There the SSE delivery latency is that of
the personal stream's "your turn" (from the previous seat's command answer to the notice). With
`think` the tournament's bots take that long over each choice (`Thinking`): a load below saturation.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import math
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from stela_client import AiohttpTransport, Client

from service.bots.client import ApiClient
from service.bots.play import SeatPlayer, TurnPlayer
from service.bots.strategies import RandomStrategy, Strategy


ROUND_START_WINDOW = 60.0  # seconds after a round's pairing counted as its start (`Recorder.after_round_start`)


@dataclass
class Recorder:
    """Observer of every seat: latencies, deliveries, conflicts, errors."""

    command_seconds: list[float] = field(default_factory=list)
    command_sent: list[float] = field(default_factory=list)  # when each of `command_seconds` was sent
    round_starts: list[float] = field(default_factory=list)  # when the organiser saw each round paired
    answered: dict[tuple[str, int], tuple[float, int]] = field(default_factory=dict)
    arrivals: list[tuple[str, int | None, int, float]] = field(default_factory=list)
    conflicts: int = 0
    errors: list[str] = field(default_factory=list)
    games_done: int = 0
    tournament_id: str | None = None
    phases: dict[str, float] = field(default_factory=dict)  # seconds of a competition's steps before its play

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time the block as the phase `name`."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.phases[name] = round(time.perf_counter() - start, 3)

    def commanded(self, game_id: str, seat: int, version: int, sent: float, answered: float) -> None:
        self.command_seconds.append(answered - sent)
        self.command_sent.append(sent)
        self.answered[(game_id, version)] = (answered, seat)

    def delivered(self, game_id: str, seat: int | None, version: int, at: float) -> None:
        self.arrivals.append((game_id, seat, version, at))

    def round_started(self, at: float) -> None:
        self.round_starts.append(at)

    def after_round_start(self, window: float = ROUND_START_WINDOW) -> tuple[list[float], list[float]]:
        """The command latencies of requests sent within `window` seconds of a round's start (before the
        next round's), and the rest: what a round's games all starting at once do to the commands after it."""
        starts = sorted(self.round_starts)
        first: list[float] = []
        rest: list[float] = []
        for sent, seconds in zip(self.command_sent, self.command_seconds):
            begun = bisect.bisect_right(starts, sent) - 1
            (first if begun >= 0 and sent - starts[begun] < window else rest).append(seconds)
        return first, rest

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
    rounds: int = 3
    time_control: dict[str, Any] = field(default_factory=dict)
    think: float = 0.0  # seconds a tournament bot takes over each choice (drawn from half to one and a half times it)


def report(config: Config, recorder: Recorder, seconds: float, throttled: int) -> dict[str, Any]:
    ms = lambda v: None if v is None else round(v * 1000, 2)  # noqa: E731
    commands, deliveries = recorder.command_seconds, recorder.delivery_seconds()
    rounds: dict[str, Any] = {}
    if recorder.round_starts:  # a competition of rounds: the minute after each round's start against the rest
        first, rest = recorder.after_round_start()
        start_p99, steady_p99 = percentile(first, 0.99), percentile(rest, 0.99)
        rounds = {"round_start_commands": len(first), "round_start_ms_p99": ms(start_p99),
                  "steady_commands": len(rest), "steady_ms_p99": ms(steady_p99),
                  "round_start_vs_steady_p99": round(start_p99 / steady_p99, 2) if start_p99 and steady_p99 else None}
    return {"mode": config.mode, "kind": config.kind, "players": config.players, "seats": config.seats,
            "games": recorder.games_done, "concurrency": config.concurrency, "seconds": round(seconds, 2),
            "commands": len(commands), "commands_per_s": round(len(commands) / max(seconds, 1e-9), 1),
            "command_ms_p50": ms(percentile(commands, 0.5)), "command_ms_p99": ms(percentile(commands, 0.99)),
            "deliveries": len(deliveries), "sse_ms_p50": ms(percentile(deliveries, 0.5)),
            "sse_ms_p99": ms(percentile(deliveries, 0.99)), "conflicts": recorder.conflicts,
            "throttled": throttled, "errors": len(recorder.errors), **rounds, **recorder.phases}


@contextlib.asynccontextmanager
async def players_on(urls: list[str], count: int) -> AsyncIterator[list[ApiClient]]:
    """`count` SDK clients (not yet registered), spread over `urls` round-robin, one aiohttp transport per
    URL shared by its clients (httpx cost the bots more CPU than the service spent on their commands)."""
    transports = [AiohttpTransport() for _ in urls]
    try:
        yield [ApiClient(Client(urls[i % len(urls)], transport=transports[i % len(urls)])) for i in range(count)]
    finally:
        await asyncio.gather(*(t.close() for t in transports))


async def register(clients: list[ApiClient], width: int) -> None:
    """Register every client as a player named `bot-<index>`, `width` at a time."""
    gate = asyncio.Semaphore(width)

    async def one(i: int) -> None:
        async with gate:
            await clients[i].sdk.register(f"bot-{i}")

    await asyncio.gather(*(one(i) for i in range(len(clients))))


async def free_games(config: Config, clients: list[ApiClient], recorder: Recorder,
                     tick: Callable[[], None]) -> None:
    """`config.games` tables of `config.seats`, players seated round-robin, `concurrency` at a time."""
    gate = asyncio.Semaphore(config.concurrency)

    async def table(index: int) -> None:
        seated = [clients[(index * config.seats + s) % len(clients)] for s in range(config.seats)]

        async def play() -> None:
            game_id = (await seated[0].sdk.create_game(config.kind, config.seats, config.options)).id
            for seat, api in enumerate(seated[1:], start=1):
                await api.sdk.join(game_id, seat)
            await seated[0].sdk.start(game_id)
            await _seats(config, game_id, seated, f"{index}", recorder)

        async with gate:
            await _counted(f"table {index}", play(), recorder, tick)

    await asyncio.gather(*(table(i) for i in range(config.games)))


async def tournament(config: Config, clients: list[ApiClient], recorder: Recorder,
                     tick: Callable[[], None]) -> None:
    """A Swiss of every player at tables of `config.seats`, round after round until it ends.

    Each player follows only its personal stream and acts when it says "your turn" (`TurnPlayer`);
    the organiser follows the tournament stream until the tournament has ended.
    """
    organiser = clients[0].sdk
    created = await organiser.create_tournament(config.kind, name="loadtest", options=config.options,
                                                seats=config.seats, rounds=config.rounds,
                                                time_control=config.time_control)
    tid = recorder.tournament_id = created.tournament_id
    gate = asyncio.Semaphore(max(config.concurrency, 1))

    async def register(api: ApiClient) -> None:
        async with gate:  # each answers with the player's entry alone (a few hundred bytes, whatever the field)
            await api.sdk.register_for(tid)

    with recorder.phase("entries_s"):
        await asyncio.gather(*(register(api) for api in clients))
    players = [TurnPlayer(api, _thinking(config, i, RandomStrategy(random.Random(f"{config.seed}:{i}"))), recorder)
               for i, api in enumerate(clients)]
    running = [asyncio.create_task(p.run()) for p in players]
    try:
        with recorder.phase("streams_s"):
            await asyncio.gather(*(_connected(p, task) for p, task in zip(players, running)))
        with recorder.phase("start_s"):  # the first round paired and its games written, in one request
            await organiser.start_tournament(tid)
        async for event in organiser.tournament_stream(tid):  # ends after tournament.TournamentEnded
            if event.type == "tournament.RoundPaired":
                recorder.round_started(time.perf_counter())
            elif event.type == "tournament.ResultRecorded":
                recorder.games_done += 1
                tick()
    finally:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        recorder.errors += [e for p in players for e in p.errors]


class Thinking:
    """`inner`, taking its time: each choice waits `seconds` times a factor drawn from 0.5 to 1.5 (from its own
    `rng`, so the choices are the same as without thinking). Bots that think, as players do, offer a load the
    service can sustain; bots that never think keep every table's next request waiting in its queue, and
    then latency is the number of tables over the throughput (Little's law), whatever the server does.
    The wait comes before the request is sent: it counts in no command's latency."""

    def __init__(self, inner: Strategy, seconds: float, rng: random.Random) -> None:
        self.inner, self.seconds, self.rng = inner, seconds, rng
        self.name = inner.name

    async def choose(self, api: ApiClient, game_id: str, legal: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(self.seconds * (0.5 + self.rng.random()))
        return await self.inner.choose(api, game_id, legal)

    def decide(self, view: dict[str, Any] | None, seat: int, commands: list[dict[str, Any]]) -> dict[str, Any]:
        return self.inner.decide(view, seat, commands)


def _thinking(config: Config, index: int, strategy: Strategy) -> Strategy:
    """Player `index`'s strategy, thinking `config.think` seconds a choice when that is set."""
    if config.think <= 0:
        return strategy
    return Thinking(strategy, config.think, random.Random(f"{config.seed}:{index}:think"))


async def _connected(player: TurnPlayer, running: asyncio.Task[None]) -> None:
    """Until the player's personal stream is open (so every game it is seated in reaches it); raises if the
    stream failed for good (a service that caps stream openings per client refuses a crowd from one address:
    run it with `STELA_STREAM_RATE_LIMIT=0` and `STELA_MAX_STREAMS_PER_CLIENT=0` for a load test)."""
    waiter = asyncio.ensure_future(player.connected.wait())
    await asyncio.wait({waiter, running}, return_when=asyncio.FIRST_COMPLETED)
    if not waiter.done():
        waiter.cancel()
        raise RuntimeError(f"a player's personal stream failed: {running.exception()!r}")


async def _seats(config: Config, game_id: str, seated: list[ApiClient], label: str, recorder: Recorder) -> None:
    """Every seat of a started game played by its own client with a seeded random strategy."""
    rngs = [random.Random(f"{config.seed}:{label}:{s}") for s in range(len(seated))]
    await asyncio.gather(*(SeatPlayer(api, game_id, RandomStrategy(rng), recorder).run()
                           for api, rng in zip(seated, rngs)))


async def _counted(label: str, work: Awaitable[None], recorder: Recorder, tick: Callable[[], None]) -> None:
    """Run one game's `work`, counting it done and any failure as an error."""
    try:
        await work
    except Exception as exc:  # noqa: BLE001 - every failure is counted and reported
        recorder.errors.append(f"{label}: {type(exc).__name__}: {exc}")
    finally:
        recorder.games_done += 1
        tick()


MODES: dict[str, Callable[[Config, list[ApiClient], Recorder, Callable[[], None]], Awaitable[None]]] = {
    "free": free_games,
    "tournament": tournament,
}


async def run(config: Config, progress: Any = None) -> dict[str, Any]:
    """Run the load and return the report; `progress` is a rich Progress (or None)."""
    if config.seats > config.players:
        raise ValueError("need at least as many players as seats")
    recorder = Recorder()
    async with players_on([config.url], config.players) as clients:
        await register(clients, max(config.concurrency, 1))
        total = config.rounds * (config.players // config.seats) if config.mode == "tournament" else config.games
        task = progress.add_task(f"{config.kind} games", total=total) if progress is not None else None

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
    out["tournament_id"] = recorder.tournament_id
    return out
