"""What the fault suite watches besides the database: SSE streams, the game loops' endings, server logs.

- SSE: a `Follower` reads one game's stream as its first seat's player from whichever replica is up,
  from the first version (`Last-Event-ID: 0`), and after every break (a replica killed, Redis hung, a
  read that stalls) reconnects to any replica with the last id it got. Once the bots stop, each
  follower is given the versions the events endpoint shows that player (`as_seat` after the end:
  exactly what the seat was sent during play), which include every event acknowledged to it, and
  runs until it has reached the last of them; `sse_findings` then names every version that never
  arrived and every one that arrived twice.
- endings: a game loop stops only when told to or when its game finished; any other ending (a game
  left `open`, a start that failed, a request that gave up) is a fault (`early_endings`).
- logs: every line of every server's log (replicas, the retired ones, the projector) that carries a
  traceback is a fault, unless its exception is the database or Redis being away while a fault made
  them so (every exception of its chain and groups is such an outage, or only wraps one: `outage`);
  those are the outages the suite caused, logged as the service retries, and only counted.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import httpx

ENDED_WELL = ("finished", "stopped")
# exceptions that mean "the database or Redis is away", which the faults cause on purpose
OUTAGES = (
    "ConnectionRefusedError", "ConnectionResetError", "ConnectionAbortedError", "BrokenPipeError",
    "ConnectionDoesNotExistError", "CannotConnectNowError", "AdminShutdownError", "CrashShutdownError",
    "IdleInTransactionSessionTimeoutError", "QueryCanceledError", "StoreUnavailable", "TimeoutError",
    "redis.exceptions.ConnectionError", "redis.exceptions.TimeoutError", "the underlying connection is closed",
    "connection is closed", "the database system is",
    "connection has been released back to the pool",  # asyncpg detaches a connection the server ended
    # an append's lock wait cut short (`lock_timeout`): refused and retried by design (issue 43, item 2), as
    # when the arena worker of one replica meets another's pairing transaction on a slow machine
    "LockNotAvailableError", "StreamLocked",
)
# exceptions that only carry another one (a task group's, or litestar's for an error inside a started stream)
WRAPPERS = ("ExceptionGroup", "Exception caught after response started")
EXCEPTION_LINE = re.compile(r"^[\s|+]*([\w.]+(?:Error|Exception|Group|Exit|Interrupt|Warning)\b.*)$", re.M)


class Follower:
    """One game's SSE stream followed across faults; `ids` are the event versions in the order received."""

    def __init__(self, urls: Callable[[], list[str]], game_id: str, token: str, rnd: random.Random) -> None:
        self.urls, self.game_id, self.token, self.rnd = urls, game_id, token, rnd
        self.ids: list[int] = []
        self.reconnects = 0
        self.target: int | None = None  # set once the bots stop: the last version to wait for

    def done(self) -> bool:
        return self.target is not None and (self.target == 0 or (bool(self.ids) and self.ids[-1] >= self.target))

    async def run(self, http: httpx.AsyncClient) -> None:
        """Read, reconnecting with the last id after every break, until `done` (cancel it to give up)."""
        pause = 0.1
        while not self.done():
            url = self.rnd.choice(self.urls()) + f"/v1/games/{self.game_id}/stream"
            headers = {"Authorization": f"Bearer {self.token}", "Last-Event-ID": str(self.ids[-1] if self.ids else 0)}
            try:
                async with http.stream("GET", url, headers=headers, timeout=httpx.Timeout(30.0, connect=3.0)) as resp:
                    if resp.status_code == 200:
                        pause = 0.1
                        await self._read(resp)
            except (httpx.HTTPError, OSError):
                pass
            if not self.done():
                self.reconnects += 1
                await asyncio.sleep(pause * (1 + self.rnd.random()))
                pause = min(pause * 2, 2.0)

    async def _read(self, resp: httpx.Response) -> None:
        event, event_id = None, None
        async for line in resp.aiter_lines():
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("id:"):
                event_id = int(line[3:].strip())
            elif line == "":
                if event_id is not None and event != "snapshot":
                    self.ids.append(event_id)
                event, event_id = None, None
                if self.done():
                    return


async def shown_versions(client: Any, game_id: str, token: str) -> list[int]:
    """The versions the events endpoint shows the player of `token` (as its seat 0 received them after the end)."""
    versions: list[int] = []
    after = 0
    while True:
        resp = await client.call("GET", f"/v1/games/{game_id}", token)
        params = {"after": str(after), "limit": "5000"}
        if resp is not None and resp.status_code == 200 and resp.json()["status"] in ("finished", "aborted"):
            params["as_seat"] = "0"
        page = await client.call("GET", f"/v1/games/{game_id}/events", token, params=params)
        if page is None or page.status_code != 200:
            raise RuntimeError(f"the events of {game_id} could not be read: {page and page.status_code}")
        body = page.json()
        versions += [e["version"] for e in body["events"]]
        if after + 5000 >= body["version"]:
            return versions
        after += 5000


async def settle(followers: list[Follower], client: Any, tokens: dict[str, str],
                 timeout: float) -> dict[str, list[int]]:
    """Give each follower its target (the last version it must see) and wait until all reach it or `timeout`;
    the versions shown per game."""
    shown: dict[str, list[int]] = {}
    for f in followers:
        shown[f.game_id] = await shown_versions(client, f.game_id, tokens[f.game_id])
        f.target = shown[f.game_id][-1] if shown[f.game_id] else 0
    deadline = time.monotonic() + timeout
    while not all(f.done() for f in followers) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    return shown


def sse_findings(followed: dict[str, list[int]], shown: dict[str, list[int]]) -> dict[str, list[str]]:
    """Per game, the versions shown to the viewer that its stream never delivered (`missing`) and the
    versions delivered more than once or out of order (`duplicated`)."""
    found: dict[str, list[str]] = {"missing": [], "duplicated": []}
    for game_id, versions in shown.items():
        got = followed.get(game_id, [])
        missing = sorted(set(versions) - set(got))
        if missing:
            found["missing"].append(f"{game_id}: versions {missing[:10]} never reached the stream")
        twice = sorted(v for v, n in Counter(got).items() if n > 1)
        backwards = [b for a, b in zip(got, got[1:]) if b <= a and b not in twice]
        if twice or backwards:
            found["duplicated"].append(f"{game_id}: versions {(twice + backwards)[:10]} delivered again")
    return found


def early_endings(endings: Iterable[Any]) -> list[str]:
    """The game loops that ended other than finished or told to stop (a crash counts, as its repr)."""
    return [repr(e) if isinstance(e, BaseException) else str(e) for e in endings
            if isinstance(e, BaseException) or e not in ENDED_WELL]


def tracebacks(logs: dict[str, str]) -> dict[str, list[str]]:
    """Per log name, the lines (or raw traceback blocks) with an exception other than an outage's."""
    found: dict[str, list[str]] = {}
    for name, text in logs.items():
        bad = [blob for blob in _exceptions(text) if not outage(blob)]
        if bad:
            found[name] = [b[-600:] for b in bad]
    return found


def outage(blob: str) -> bool:
    """A traceback whose exceptions (its chain and groups) are all outages the suite caused, or wrappers of one."""
    raised = EXCEPTION_LINE.findall(blob)
    outages = [e for e in raised if any(o in e for o in OUTAGES)]
    return bool(outages) and all(e in outages or any(w in e for w in WRAPPERS) for e in raised)


def outages(logs: dict[str, str]) -> int:
    """How many tracebacks the logs hold of the outages the suite caused (reported, not failed)."""
    return sum(outage(blob) for text in logs.values() for blob in _exceptions(text))


def _exceptions(text: str) -> list[str]:
    """Each JSON log line with an `exception`, and each raw `Traceback` block (until the next JSON line)."""
    blobs: list[str] = []
    raw: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("{"):
            if raw is not None:
                blobs.append("\n".join(raw))
                raw = None
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("exception") or entry.get("exc_info"):
                blobs.append(f"{entry.get('event')}: {entry.get('exception') or entry.get('exc_info')}")
        elif line.startswith("Traceback (most recent call last)"):
            if raw is not None:
                blobs.append("\n".join(raw))
            raw = [line]
        elif raw is not None:
            raw.append(line)
    if raw is not None:
        blobs.append("\n".join(raw))
    return blobs
