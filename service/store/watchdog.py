"""The embedded PostgreSQL's watchdog: it stops the server when the process that started it dies.

`python -m service.store.watchdog <owner pid> <pgdata>` runs in its own session (a Ctrl-C or a
kill of the owner's process group does not reach it), looks every `EVERY` seconds whether the
owner is alive, and once it is not, and no other live process holds the server
(`embedded.live_owners`), asks the postmaster for a fast shutdown (SIGINT: sessions rolled back,
a clean checkpoint) and exits. The owner's clean stop ends the watchdog first.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import psutil

from service.store.embedded import live_owners, stop_postmaster

EVERY = 0.5


def _alive(pid: int, started: float) -> bool:
    try:
        process = psutil.Process(pid)
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE and \
            abs(process.create_time() - started) < 1
    except psutil.Error:
        return False


def main(argv: list[str]) -> int:
    owner, pgdata = int(argv[0]), Path(argv[1])
    try:
        started = psutil.Process(owner).create_time()
    except psutil.Error:
        started = 0.0
    while _alive(owner, started):
        time.sleep(EVERY)
    if not live_owners(pgdata):
        stop_postmaster(pgdata)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
