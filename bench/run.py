"""Run every benchmark and print one JSON line per result (`--short` for the CI mode), then each one's wall time
and the whole run's on stderr.

The fault suite (bench.chaos) runs in the short mode only: its full mode is `make chaos`. It runs beside
the other benchmarks rather than after them: it measures no speed (it checks that nothing is lost or
leaked through its faults; its phase seconds are printed only), it starts its own PostgreSQL and Redis,
and most of its wall time is spent waiting through outages, so it would only leave the machine idle. The
benchmarks that measure speed still run one at a time, so none measures another. The short mode is a smoke
run (CI proves every benchmark still runs and prints its numbers; no figure of it is kept), so there the
arena, which mostly waits out its one-minute floor, runs beside the others too, and so does the instruction
count (bench.instructions), which the others' load cannot change.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHES = ["bench.store", "bench.http", "bench.sse", "bench.projections", "bench.simulate", "bench.legal",
           "bench.tournament"]
BENCHES.append("bench.arena")  # docs/arena.md
BENCHES.append("bench.freeze")  # issue 43: no body holds the event loop
BENCHES.append("bench.instructions")  # issue 47: a request's cost in instructions, steady on a shared machine
SHORT_ONLY = ["bench.chaos"]  # run beside BENCHES
# with --short: beside the others rather than after them (bench.instructions counts instructions, which the
# others' load does not change, and the others' short figures are kept by no one)
SHORT_BESIDE = ["bench.arena", "bench.instructions"]


def present(modules: list[str]) -> list[str]:
    return [m for m in modules if (ROOT / (m.replace(".", "/") + ".py")).exists()]


def main() -> int:
    args = sys.argv[1:]
    short = "--short" in args
    start = time.monotonic()
    beside = [subprocess.Popen([sys.executable, "-m", module, *args], cwd=ROOT)
              for module in present(SHORT_ONLY + SHORT_BESIDE if short else [])]
    ended: dict[str, float] = {}  # a benchmark run beside the others: when it ended

    def wait(proc: subprocess.Popen) -> None:
        proc.wait()
        ended[proc.args[2]] = time.monotonic()

    waiters = [threading.Thread(target=wait, args=(proc,)) for proc in beside]
    for waiter in waiters:
        waiter.start()
    after = [m for m in present(BENCHES) if not (short and m in SHORT_BESIDE)]
    walls, failed = [], []
    for module in after:
        began = time.monotonic()
        if subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT).returncode:
            failed.append(module)
        walls.append((module, time.monotonic() - began))
    for proc, waiter in zip(beside, waiters, strict=True):
        waiter.join()
        if proc.returncode:
            failed.append(proc.args[2])
        walls.append((f"{proc.args[2]} (beside)", ended[proc.args[2]] - start))
    # each benchmark's wall time, and the whole run's, on stderr (stdout holds the results' JSON lines)
    print("\n== wall time per benchmark", file=sys.stderr)
    for module, seconds in [*walls, ("total", time.monotonic() - start)]:
        print(f"{module:<28}{seconds:7.1f}s", file=sys.stderr)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
