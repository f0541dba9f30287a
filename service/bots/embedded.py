"""The bot worker `stela serve` runs in process, so a player gets a bot opponent from `make run` alone.

It is the same `BotWorker` as `stela bot-worker` (`service.bots.runner`), an API client of the server it
runs in: it speaks HTTP to the process's own port once that port serves, with the admin token the
process was given (or made for itself: `service.cli.serve`). It asks for leases every `POLL` seconds
rather than every 10 (a third of the 30 s lease), so a bot seated in a new game starts playing within
a few seconds; an idle ask is one query. `STELA_BOTS=off` or
`stela serve --no-bots` leaves the bots to workers run apart (docs/accounts.md, "Bots").
"""

from __future__ import annotations

import asyncio

import httpx
import structlog

from service.bots.runner import BotWorker

log = structlog.get_logger("stela.bots")
POLL = 2.0  # seconds between lease asks (a new bot game waits at most this long for its worker)
STOP_SECONDS = 5.0  # how long stopping waits for the bots' tasks to end


class EmbeddedWorker:
    """A `BotWorker` named `name` against this process's port: `start` once it serves, `stop` before it stops.

    Nothing is opened until `start` (a `stela serve` worker process receives it pickled)."""

    def __init__(self, admin_token: str, name: str, poll: float = POLL) -> None:
        self.admin_token, self.name, self.poll = admin_token, name, poll
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._http: httpx.AsyncClient | None = None

    def start(self, url: str) -> None:
        """Run the worker against `url` (this process's own address) in the running event loop."""
        self._stop = asyncio.Event()
        self._http = httpx.AsyncClient(base_url=url, timeout=30.0)
        worker = BotWorker(self._http, self.admin_token, self.name, poll=self.poll)
        self._task = asyncio.create_task(worker.run(self._stop), name="embedded-bot-worker")
        log.info("bot_worker_started", url=url, worker=self.name)

    async def stop(self) -> None:
        """Stop asking for leases and end the bots' tasks (their leases stay: a restart resumes them)."""
        if self._task is None or self._stop is None or self._http is None:
            return
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(self._task), STOP_SECONDS)
        except TimeoutError:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self._http.aclose()
        self._task = None
