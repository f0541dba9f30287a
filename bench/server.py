"""`stela serve` with the test-only Tally game added, for benchmarks that post commands blindly.

Tally's `Add(1)` is legal for whichever seat is to act, so a load generator can post commands
without reading the game first (POST only). With `STELA_BENCH_SEED` (hex) every game gets that
seed, so a load generator can post the commands of real games it played beforehand (bench.steps).
Run as `python -m bench.server`; configured by the same environment as `stela serve`.
"""

from __future__ import annotations

from typing import Any

from domain.catalog import GAMES
from testkit.tally import TALLY


def create_app() -> Any:
    """The service app with every catalogue game plus Tally."""
    import os

    from service.edge.app import create_app as create

    if os.environ.get("STELA_BENCH_SEED"):
        from bench.steps import fixed_seed

        fixed_seed(os.environ["STELA_BENCH_SEED"])
    return create(games={**GAMES, TALLY.kind: TALLY})


def main() -> None:
    from service.cli.serve import run
    from service.ops.settings import Settings

    run(Settings.from_env(), "bench.server:create_app")


if __name__ == "__main__":
    main()
