"""How a long-running process of this project keeps the garbage collector out of its way."""

from __future__ import annotations

import gc


def settle_memory() -> None:
    """Once a process has built what it keeps (a server its app, routes and the rules' tables; the load
    generator its registered players): those objects are left out of every later garbage collection
    (`gc.freeze`), and a young collection runs after 50,000 new container objects instead of 700. A
    command allocates a few hundred, so the default ran a collection every other request or so; this
    cuts the CPU of a command by about 4% (bench notes). In the load generator, whose thousand players
    hold a large heap, the default also ran a full collection every ~11 s that paused every player
    ~170 ms: the slowest 1 % of "command latency" at a sustainable load was the load generator's own.
    For processes of their own only (it changes the whole interpreter's collector): `stela serve` and the
    benchmarks' load generators; never a function a test may call in its own process."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
