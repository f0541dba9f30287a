"""Run the suite tier by tier and say what each cost: `make check`, `make test` and `make test-long` call this.

The tiers are tests/tiers.py's (every test is in exactly one): `check` needs nothing but Python, `service` a
PostgreSQL, a Redis or a live server, `browser` Chromium or Node, `slow` a large budget. `check` runs as its
own pytest session against addresses where no PostgreSQL or Redis answers, so a test that needs either and
lacks its marker fails there. The other tiers named run together in ONE xdist session (`--tiers`), with
more workers than cores (`STELA_TEST_WORKERS`, default 3; each worker holds up to about 30 PostgreSQL
connections): most of their tests wait on sockets, subprocesses and browsers, and one session has no tail
per tier that leaves a core idle. Its work units (an xdist group, else one test) are handed out longest first,
by the seconds each test took in the last run that timed it (build/tiers/durations.json, kept across runs; on
a clean clone each test counts by its tier, tests/tiers.py's GUESS), so the long units start while short ones
remain to fill in around them and the session ends without a tail. Each session writes a JUnit report to build/tiers/ in which every test
case carries its tier and the time it started (tests/tiers.py); at the end the 25 slowest tests and each
tier's span (first start to last end), busy seconds and count are printed, then each session's wall time.
A failed session, or a tier that selects no test at all, fails the run: a tier that stops matching cannot
pass silently.

    python tests/run_tiers.py check            # the fast tier alone
    python tests/run_tiers.py check service browser slow   # the whole suite
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.tiers import TIERS, ungrouped  # noqa: E402  (run as a script: the repository root goes on the path first)

REPORTS = ROOT / "build" / "tiers"
PATHS = ["tests", "clients/python/tests"]
WORKERS = os.environ.get("STELA_TEST_WORKERS", "3")  # 3 x ~30 PostgreSQL connections at most: under 100
NOWHERE = {"TEST_ADMIN_DATABASE_URL": "postgresql://postgres@127.0.0.1:9/postgres",  # port 9: discard, closed
           "TEST_REDIS_URL": "redis://127.0.0.1:9/0"}
SLOWEST = 25


def run(session: str, tiers: list[str]) -> tuple[int, float]:
    """One pytest session over `tiers`: its exit code and wall seconds."""
    alone = tiers == ["check"]
    options = ["-n", "auto"] if alone else ["-n", WORKERS, "--dist", "loadgroup", "--no-loadscope-reorder",
                                            f"--tier-durations={durations()}"]
    env = {**os.environ, **(NOWHERE if alone else {})}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tiers", ",".join(tiers), *options,
               f"--junitxml={REPORTS / session}.xml", "-o", "junit_family=xunit2", *PATHS]
    print(f"\n== session {session}: tiers {', '.join(tiers)} ({' '.join(options)})", flush=True)
    started = time.monotonic()
    code = subprocess.call(command, cwd=ROOT, env=env)
    return code, time.monotonic() - started


def cases(session: str) -> list[dict]:
    """Every test case of a session's JUnit report: its id, tier, start (epoch seconds), seconds (setup, call
    and teardown) and whether it failed."""
    path = REPORTS / f"{session}.xml"
    if not path.exists():
        return []
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        found = {p.get("name"): p.get("value") for p in case.iter("property")}
        name = f"{case.get('classname')}::{case.get('name')}" if case.get("classname") else "(the session itself)"
        out.append({"name": name, "tier": found.get("tier", "?"),
                    "started": float(found.get("started", 0)), "seconds": float(case.get("time", 0)),
                    "failed": case.find("failure") is not None or case.find("error") is not None})
    return out


def durations() -> Path:
    """Each test's seconds when last timed, by its JUnit name (`classname::name`, as tests/tiers.py keys it)."""
    return REPORTS / "durations.json"


def keep_durations(sessions: list[str]) -> None:
    """Merge the seconds of every test the sessions ran into durations() (the next run's order)."""
    known = json.loads(durations().read_text()) if durations().exists() else {}
    for case in (c for session in sessions for c in cases(session)):
        if "::" in case["name"]:
            known[ungrouped(case["name"])] = round(case["seconds"], 2)
    durations().write_text(json.dumps(known, indent=0, sort_keys=True))


def report(sessions: dict[str, tuple[list[str], int, float]]) -> bool:
    """Print the slowest tests, each tier's span, busy seconds and count, and each session's wall time;
    whether every session passed and every tier asked for ran at least one test."""
    every = [case for session in sessions for case in cases(session)]
    print(f"\n== the {SLOWEST} slowest tests")
    for case in sorted(every, key=lambda c: -c["seconds"])[:SLOWEST]:
        print(f"{case['seconds']:8.1f}s  {case['tier']:8} {case['name']}")
    print("\n== per tier (span: its first test's start to its last test's end, inside its session)")
    good = True
    for tiers, _, _ in sessions.values():
        for tier in tiers:
            mine = [c for c in every if c["tier"] == tier]
            failed = sum(c["failed"] for c in mine)
            span = max((c["started"] + c["seconds"] for c in mine), default=0) - min(
                (c["started"] for c in mine), default=0)
            outcome = "FAILED: no test selected" if not mine else f"FAILED: {failed}" if failed else "passed"
            good &= bool(mine) and not failed
            print(f"{tier:8} span {span:7.1f}s  busy {sum(c['seconds'] for c in mine):7.1f}s  {len(mine):5} tests  "
                  f"{outcome}")
    print("\n== wall time per session")
    for session, (tiers, code, wall) in sessions.items():
        good &= code == 0
        print(f"{session:24} {wall:7.1f}s  {'passed' if code == 0 else f'FAILED (exit {code})'}")
    print(f"{'total':24} {sum(wall for _, _, wall in sessions.values()):7.1f}s")
    return good


def main(tiers: list[str]) -> int:
    unknown = [t for t in tiers if t not in TIERS]
    if unknown or not tiers:
        print(f"usage: run_tiers.py {' '.join(TIERS)} (unknown: {unknown})", file=sys.stderr)
        return 2
    REPORTS.mkdir(parents=True, exist_ok=True)
    groups = [["check"]] * ("check" in tiers) + [[t for t in TIERS if t in tiers and t != "check"]]
    sessions = {}
    for group in filter(None, groups):
        name = "-".join(group)
        (REPORTS / f"{name}.xml").unlink(missing_ok=True)
        sessions[name] = (group, *run(name, group))
    keep_durations(list(sessions))
    return 0 if report(sessions) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
