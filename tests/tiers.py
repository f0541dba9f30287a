"""The test tiers: markers given to every test by what it needs, so nobody has to remember them.

A pytest plugin (loaded by `-p tests.tiers` in pyproject.toml) that marks each collected test from
three facts, any of which is enough: the fixtures it requests (directly or through other fixtures:
`pg_dsn` means PostgreSQL), the helpers its module or its own body imports (`fresh_database`, a live
server, a Redis client, Playwright, the random-play listing checker), and the folder it lives in (every test in tests/web drives a
browser). A marker is only ever added, never removed, so a test asking for more than it needs lands
in a slower tier, never in a faster one that lacks what it needs. `make check` runs the tests with
none of the `SLOWER` markers, against addresses where no PostgreSQL or Redis answers, so a test that
needs either and escaped its marker fails there at once rather than passing by luck.
"""

from __future__ import annotations

import json
import time
import types
from pathlib import Path

import pytest
from _pytest.junitxml import mangle_test_address

ROOT = Path(__file__).resolve().parent.parent
MARKERS = {
    "pg": "needs PostgreSQL (127.0.0.1:5432, or TEST_ADMIN_DATABASE_URL)",
    "redis": "needs Redis (127.0.0.1:6379, or TEST_REDIS_URL)",
    "server": "runs the service on a port: `stela serve` processes or uvicorn in a thread, or nginx in front",
    "browser": "drives Debian's Chromium through Playwright",
    "node": "runs Node.js >= 20 and npm",
    "slow": "a large budget: random-play equivalence runs, hypothesis oracles, whole games in a browser, fuzzers",
}
SLOWER = ("pg", "redis", "server", "browser", "node", "slow")  # `make check` runs a test with none of them
# the tiers tests/run_tiers.py runs, each a test of a test's markers; every test is in exactly one
TIERS = {
    "check": lambda marks: not marks & set(SLOWER),
    "service": lambda marks: bool(marks & {"pg", "redis", "server"}) and not marks & {"browser", "node", "slow"},
    "browser": lambda marks: bool(marks & {"browser", "node"}) and "slow" not in marks,
    "slow": lambda marks: "slow" in marks,
}

# fixtures (anywhere in a test's closure) -> markers
FIXTURES = {
    "pg_dsn": ("pg",), "redis_server": ("redis", "server"), "browser": ("browser",),
    "site": ("server", "pg"), "static_origin": ("server",), "server": ("server", "pg"),
}
# what a module imports (its globals: modules by name, functions and classes by where they are defined)
# -> markers; a module importing one of these is assumed to use it in each of its tests
IMPORTS = {
    "asyncpg": ("pg",), "tests.conftest.fresh_database": ("pg",), "service.store.postgres": ("pg",),
    "service.store.embedded": ("pg", "server"),
    "redis": ("redis",), "tests.conftest.REDIS_URL": ("redis",),
    "testkit.live.serving": ("server",), "testkit.processes": ("server",), "subprocess": ("server",),
    "playwright": ("browser",),
    "tests.support.listing.play_checked": ("slow",),  # a random-play listing equivalence run
}
# folders and files (relative to the repository) -> markers for every test in them
FOLDERS = {
    "tests/web": ("browser", "server", "pg"),
    "tests/browser": ("browser", "server", "pg"),
    "tests/sdk_typescript": ("node", "browser", "server", "slow"),  # builds the SDK, runs it in Node and Chromium
    "tests/contract/test_typescript_client.py": ("node",),  # npm ci and tsc over the generated types
    "tests/contract": ("server", "pg"),
    "tests/e2e": ("server", "pg"),
    "tests/projections": ("pg",),
    "clients/python/tests": ("server", "pg"),
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--tiers", help=f"run only these tiers, comma-separated ({', '.join(TIERS)}); "
                                     "tests/run_tiers.py passes it")
    parser.addoption("--tier-durations", help="a JSON file of each test's seconds in an earlier run (tests/run_tiers.py "
                                              "keeps it): with --tiers, the longest work units are handed out first")


def pytest_configure(config: pytest.Config) -> None:
    for name, help_ in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {help_}")
    wanted = (config.getoption("--tiers") or "").split(",")
    if unknown := [t for t in wanted if t and t not in TIERS]:
        raise pytest.UsageError(f"--tiers: no tier {unknown} (the tiers: {', '.join(TIERS)})")


def _imported(module: types.ModuleType | None) -> set[str]:
    """The dotted names a test module's globals stand for: modules and their parents, and for a
    function, class or module-level constant of another module, `module.name`."""
    out: set[str] = set()
    if module is None:
        return out
    for name, value in vars(module).items():
        if isinstance(value, types.ModuleType):
            parts = value.__name__.split(".")
            out.update(".".join(parts[: n + 1]) for n in range(len(parts)))
            continue
        origin = getattr(value, "__module__", None)
        if isinstance(origin, str) and not isinstance(value, (str, int, float)):
            parts = origin.split(".")
            out.update(".".join(parts[: n + 1]) for n in range(len(parts)))
            out.add(f"{origin}.{getattr(value, '__name__', name)}")
    if "REDIS_URL" in vars(module):
        out.add("tests.conftest.REDIS_URL")
    return out


def _imported_inside(function: object) -> set[str]:
    """What a test function imports in its own body (`import redis.asyncio`, `from tests.conftest import
    REDIS_URL`), as dotted names: the names its code (and code nested in it) loads or imports."""
    code = getattr(getattr(function, "__wrapped__", function), "__code__", None)
    names: set[str] = set()
    stack = [code] if code is not None else []
    while stack:
        current = stack.pop()
        names.update(current.co_names)
        stack += [c for c in current.co_consts if isinstance(c, types.CodeType)]
    out = set()
    for name in names:
        parts = name.split(".")
        out.update(".".join(parts[: n + 1]) for n in range(len(parts)))
    out |= {f"{module}.{name}" for module in names for name in names}
    return out


def needs(item: pytest.Item) -> set[str]:
    """The markers `item` earns by its fixtures, its module's imports and its folder."""
    found: set[str] = set()
    for fixture in getattr(item, "fixturenames", ()):
        found.update(FIXTURES.get(fixture, ()))
    imports = _imported(getattr(item, "module", None)) | _imported_inside(getattr(item, "function", None))
    for name, marks in IMPORTS.items():
        if name in imports:
            found.update(marks)
    where = Path(str(item.path)).resolve()
    for folder, marks in FOLDERS.items():
        if where.is_relative_to(ROOT / folder):
            found.update(marks)
    return found


def tier(item: pytest.Item) -> str:
    """The one tier `item` is in, by the markers it has."""
    marks = {mark.name for mark in item.iter_markers()}
    return next(name for name, holds in TIERS.items() if holds(marks))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        have = {mark.name for mark in item.iter_markers()}
        for name in sorted(needs(item) - have):
            item.add_marker(getattr(pytest.mark, name))
        item.user_properties.append(("tier", tier(item)))  # in the JUnit report: run_tiers.py's tally per tier
    if wanted := config.getoption("--tiers"):
        tiers = {item: tier(item) for item in items}
        config.hook.pytest_deselected(items=[item for item in items if tiers[item] not in wanted.split(",")])
        kept = [item for item in items if tiers[item] in wanted.split(",")]
        items[:] = longest_first(kept, tiers, _durations(config.getoption("--tier-durations")))


# a test no earlier run timed counts as this many seconds by its tier: the slow and browser ones go early
GUESS = {"slow": 30.0, "browser": 10.0, "service": 1.0, "check": 0.2}


def key(item: pytest.Item) -> str:
    """The test's name as the JUnit report writes it (`classname::name`), the key of --tier-durations."""
    names = mangle_test_address(ungrouped(item.nodeid))
    return f"{'.'.join(names[:-1])}::{names[-1]}"


def ungrouped(name: str) -> str:
    """`name` without the `@group` suffix xdist's loadgroup gives a grouped test's id (and its JUnit name)."""
    return name[:name.rfind("@")] if name.rfind("@") > name.rfind("]") else name


def _durations(path: str | None) -> dict[str, float]:
    if not path or not Path(path).exists():
        return {}
    return {str(k): float(v) for k, v in json.loads(Path(path).read_text()).items()}


def longest_first(items: list[pytest.Item], tiers: dict[pytest.Item, str], seconds: dict[str, float]) -> list[pytest.Item]:
    """`items` by work unit (an xdist group, else the test alone), the longest unit first by the seconds an
    earlier run took (a test it did not time: GUESS by its tier), so the session starts the long work while
    there is still short work to fill in around it and ends without a tail. tests/run_tiers.py turns off
    xdist's own order (units by their number of tests) so that this one holds."""
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        groups = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                         for m in item.iter_markers("xdist_group")})  # as xdist names the unit
        units.setdefault("@" + "_".join(groups) if groups else item.nodeid, []).append(item)
    cost = {name: sum(seconds.get(key(i), GUESS[tiers[i]]) for i in unit) for name, unit in units.items()}
    return [item for name in sorted(units, key=lambda n: -cost[n]) for item in units[name]]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> object:
    """Stamp when each test starts (seconds since the epoch, in the JUnit report), so run_tiers.py can
    tell each tier's span inside a session that runs several tiers at once."""
    item.user_properties.append(("started", f"{time.time():.3f}"))
    return (yield)
