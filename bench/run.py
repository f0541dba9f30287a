"""Run every benchmark and print one JSON line per result (`--short` for the CI mode).

The fault suite (bench.chaos) runs in the short mode only: its full mode is `make chaos`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHES = ["bench.store", "bench.http", "bench.sse", "bench.projections", "bench.simulate", "bench.legal",
           "bench.tournament"]
BENCHES.append("bench.arena")  # docs/arena.md
BENCHES.append("bench.freeze")  # issue 43: no body holds the event loop
SHORT_ONLY = ["bench.chaos"]


def main() -> int:
    args = sys.argv[1:]
    failed = 0
    for module in BENCHES + (SHORT_ONLY if "--short" in args else []):
        if not (ROOT / (module.replace(".", "/") + ".py")).exists():
            continue
        result = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT)
        failed += result.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
