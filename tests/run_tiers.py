"""Run the suite tier by tier and say what each cost: `make check`, `make test` and `make test-long` call this.

A tier is a marker expression over the markers tests/tiers.py gives (every test is in exactly one tier):
`check` needs nothing but Python, `service` a PostgreSQL, a Redis or a live server, `browser` Chromium or
Node, `slow` a large budget. Each tier runs as its own pytest session (so its wall time is its own), writes
a JUnit report to build/tiers/, and at the end the 25 slowest tests of all tiers and each tier's wall time
and count are printed. A tier that fails, or selects no test at all (pytest's exit code 5), fails the run:
a marker expression that stops matching cannot pass silently. `check` runs against addresses where no
PostgreSQL or Redis answers, so a test that needs either and lacks its marker fails there.

    python tests/run_tiers.py check            # the fast tier alone
    python tests/run_tiers.py check service browser slow   # the whole suite
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "build" / "tiers"
PATHS = ["tests", "clients/python/tests"]
NEEDS = "pg or redis or server or browser or node or slow"
TIERS = {  # name -> (marker expression, pytest options)
    "check": (f"not ({NEEDS})", ["-n", "auto"]),
    "service": ("(pg or redis or server) and not (browser or node or slow)", ["-n", "2", "--dist", "loadgroup"]),
    "browser": ("(browser or node) and not slow", ["-n", "2", "--dist", "loadgroup"]),
    "slow": ("slow", ["-n", "2", "--dist", "loadgroup"]),
}
NOWHERE = {"TEST_ADMIN_DATABASE_URL": "postgresql://postgres@127.0.0.1:9/postgres",  # port 9: discard, closed
           "TEST_REDIS_URL": "redis://127.0.0.1:9/0"}
SLOWEST = 25


def run(tier: str) -> tuple[int, float]:
    """One tier's pytest session: its exit code and wall seconds."""
    expression, options = TIERS[tier]
    env = {**os.environ, **(NOWHERE if tier == "check" else {})}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", expression, *options,
               f"--junitxml={REPORTS / tier}.xml", "-o", "junit_family=xunit2", *PATHS]
    print(f"\n== tier {tier}: -m '{expression}'", flush=True)
    started = time.monotonic()
    code = subprocess.call(command, cwd=ROOT, env=env)
    return code, time.monotonic() - started


def cases(tier: str) -> list[tuple[float, str]]:
    """(seconds, test id) of every test case in a tier's JUnit report (setup, call and teardown)."""
    path = REPORTS / f"{tier}.xml"
    if not path.exists():
        return []
    return [(float(case.get("time", 0)), f"{case.get('classname')}::{case.get('name')}")
            for case in ET.parse(path).getroot().iter("testcase")]


def report(results: dict[str, tuple[int, float]]) -> None:
    """The slowest tests of all tiers run, then each tier's wall time, count and outcome."""
    every = sorted(((s, t, name) for t in results for s, name in cases(t)), reverse=True)
    print(f"\n== the {SLOWEST} slowest tests")
    for seconds, tier, name in every[:SLOWEST]:
        print(f"{seconds:8.1f}s  {tier:8} {name}")
    print("\n== wall time per tier")
    for tier, (code, wall) in results.items():
        outcome = {0: "passed", 5: "FAILED: no test selected"}.get(code, f"FAILED (exit {code})")
        print(f"{tier:8} {wall:7.1f}s  {len(cases(tier)):5} tests  {outcome}")
    print(f"{'total':8} {sum(wall for _, wall in results.values()):7.1f}s")


def main(tiers: list[str]) -> int:
    unknown = [t for t in tiers if t not in TIERS]
    if unknown or not tiers:
        print(f"usage: run_tiers.py {' '.join(TIERS)} (unknown: {unknown})", file=sys.stderr)
        return 2
    REPORTS.mkdir(parents=True, exist_ok=True)
    for tier in tiers:
        (REPORTS / f"{tier}.xml").unlink(missing_ok=True)
    results = {tier: run(tier) for tier in tiers}
    report(results)
    return 0 if all(code == 0 for code, _ in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
