"""Architecture rules, read from parsed imports (ast), never from text: imports point one way, the
domain stays pure, `service/` sub-packages import downwards only, nothing imports a framework's
internals, no import cycle anywhere, modules and functions stay small, and the OpenAPI file matches
the app.

Each rule is a function of a source tree that returns its offenders; the tests run it on the
project (it must find none) and on a small tree with one planted violation (it must find it), so
no rule can silently stop being able to fail.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("domain", "projections", "service")
DOMAIN_ALLOWED = {"msgspec", "domain", "__future__", "typing", "typing_extensions", "dataclasses", "enum",
                  "functools", "itertools", "collections", "hashlib", "math", "json", "importlib", "pathlib",
                  "abc", "operator", "heapq", "bisect", "re", "string", "fractions", "copy", "types",
                  "xml", "html", "textwrap", "statistics",
                  "rustworkx"}  # rustworkx: pure, deterministic matching for Swiss pairings (no I/O)
# the service's sub-packages, lowest first: each may import its own package and those before it only
SERVICE_LAYERS = ("web", "ops", "store", "commands", "live", "workers", "container", "edge", "bots", "cli")
SERVICE_ALLOWED_BELOW = {"bots": {"bots", "ops"}}  # the server's clients know nothing of the server
# the Python SDK (clients/python): the bots speak through it, nothing else of the service imports it, and it
# imports nothing of the project (a third party's client knows the API, not the server)
SDK, SDK_DIR, SDK_USERS = "stela_client", Path("clients/python/stela_client"), ("service.bots",)
APP_STATE_READERS = {"service/container.py", "service/edge/app.py", "service/edge/lifespan.py"}
# the composition root is known to the edge's app factory alone: routes receive the collaborators they name
ROOT_IMPORTERS_IN_THE_EDGE = {"service/edge/app.py"}
# who may hold a pool or a connection: the store, and the read side's SQL it hands one to (projections
# run on the pool or connection `service.store` gives them and never open one); nobody else names one
POOL_HOLDERS = ("service.store", "projections")
DRIVERS = {"asyncpg"}
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


# ---------------------------------------------------------------------------------------------- reading


def modules(root: Path, tops: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the `tops` packages under `root`."""
    out = {}
    for top in tops:
        for path in sorted((root / top).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def imported(name: str, path: Path, known: dict[str, Path] | None = None,
             members: bool = False) -> Iterator[tuple[str, int]]:
    """Every module `name` (at `path`) imports, absolute and dotted, with its line; `from a import b`
    names `a.b` when that is a module of `known` (or always, with `members`: `b` may be a module of
    another distribution), else `a`. Imports under TYPE_CHECKING and inside functions count too."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if _is_package(path) else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            for alias in node.names:
                child = f"{module}.{alias.name}"
                yield (child if members or (known is not None and child in known) else module), node.lineno


def graph(root: Path) -> dict[str, set[str]]:
    """Module -> the project modules it imports (a package's import counts as its __init__)."""
    known = modules(root)
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        targets = set()
        for target, _ in imported(name, path, known):
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                targets.add(target)
        edges[name] = targets
    return edges


# ---------------------------------------------------------------------------------------------- rules


def cycles(root: Path) -> list[list[str]]:
    """Every import cycle (strongly connected set of two or more modules, or a self-import)."""
    edges = graph(root)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:  # Tarjan, iteratively deep enough for this tree
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return found


def layer_of(name: str) -> str | None:
    parts = name.split(".")
    if parts[0] != "service" or len(parts) < 2:
        return None
    return parts[1]


def upward_imports(root: Path) -> list[str]:
    """Imports from one `service` sub-package into one above it (or into one it may not use)."""
    known = modules(root, ("service",))
    bad = []
    for name, path in known.items():
        here = layer_of(name)
        if here is None:
            continue  # service/__init__.py
        if here not in SERVICE_LAYERS:
            bad.append(f"{path.relative_to(root)}: sub-package {here!r} has no place in the stated order")
            continue
        allowed = SERVICE_ALLOWED_BELOW.get(here) or set(SERVICE_LAYERS[: SERVICE_LAYERS.index(here) + 1])
        for target, line in imported(name, path, known):
            there = layer_of(target)
            if target.split(".")[0] == "service" and (there is None or there not in allowed):
                bad.append(f"{path.relative_to(root)}:{line} ({here}) imports {target}")
    return bad


def game_packages(root: Path) -> set[str]:
    """The game packages: those the catalogue registers (the platform's `domain/table/` is not one)."""
    catalog = root / "domain" / "catalog.py"
    return {parts[1] for target, _ in imported("domain.catalog", catalog, modules(root, ("domain",)))
            if (parts := target.split("."))[0] == "domain" and len(parts) > 1 and (root / "domain" / parts[1]).is_dir()}


def game_imports_outside_the_catalogue(root: Path) -> list[str]:
    """Imports of a game package from anywhere but the catalogue (or the game itself)."""
    games = game_packages(root)
    known = modules(root, (*PACKAGES, "bench"))
    bad = []
    for name, path in known.items():
        if name == "domain.catalog":
            continue
        own = name.split(".")[1] if name.startswith("domain.") and name.count(".") >= 1 else None
        for target, line in imported(name, path, known):
            parts = target.split(".")
            if parts[0] == "domain" and len(parts) > 1 and parts[1] in games and parts[1] != own:
                bad.append(f"{path.relative_to(root)}:{line} imports {target}")
    return bad


def internal_imports(root: Path) -> list[str]:
    """Imports of another library's private modules or names (`litestar._asgi`, `x.middleware._internal`,
    `from litestar import _asgi`, `from x import _helper`); a dunder (`__version__`) is public."""
    bad = []
    for name, path in modules(root).items():
        for target, line in imported(name, path, members=True):
            head, *rest = target.split(".")
            if head not in PACKAGES and any(_private(part) for part in rest):
                bad.append(f"{path.relative_to(root)}:{line} imports {target}")
    return bad


# framework modules internal by their own word (their source calls them an internal API), each allowed only
# where it is used today; `framework_internals` finds every such module the project imports, so a new one fails
# until it is listed here
FRAMEWORK = ("litestar",)
INTERNAL_BY_WORD = {"litestar.utils.scope.state": {"service/edge/middleware.py"}}  # ScopeState: the read-ahead body
_INTERNAL_WORD = re.compile(r"internal API|for internal use|private API", re.IGNORECASE)


def _framework_module(target: str) -> tuple[str, str] | None:
    """The framework module `target` names or is a member of, with its source file."""
    parts = target.split(".")
    while parts:
        try:
            spec = importlib.util.find_spec(".".join(parts))
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            return ".".join(parts), spec.origin
        parts.pop()
    return None


def framework_internals(root: Path) -> list[str]:
    """Imports of a framework module whose own source calls it internal, outside the modules listed for it
    in INTERNAL_BY_WORD."""
    bad = []
    for name, path in modules(root).items():
        where = str(path.relative_to(root))
        for target, line in imported(name, path, members=True):
            found = _framework_module(target) if target.split(".")[0] in FRAMEWORK else None
            if found is None or where in INTERNAL_BY_WORD.get(found[0], ()):
                continue
            if found[0] in INTERNAL_BY_WORD or _INTERNAL_WORD.search(Path(found[1]).read_text()):
                bad.append(f"{where}:{line} imports {target}, internal by its own word")
    return bad


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def oversized(root: Path) -> list[str]:
    """Modules over MAX_MODULE_LINES lines and functions over MAX_FUNCTION_LINES lines."""
    bad = []
    for path in modules(root).values():
        text = path.read_text()
        where = path.relative_to(root)
        if (lines := len(text.splitlines())) > MAX_MODULE_LINES:
            bad.append(f"{where}: {lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    bad.append(f"{where}:{node.lineno} {node.name}() is {length} lines")
    return bad


def impure_domain_imports(root: Path) -> list[str]:
    """Imports in domain/ of anything but the standard library's pure parts, msgspec and itself."""
    bad = []
    for name, path in modules(root, ("domain",)).items():
        for target, line in imported(name, path):
            if target.split(".")[0] not in DOMAIN_ALLOWED:
                bad.append(f"{path.relative_to(root)}:{line} imports {target}")
    return bad


def games_importing_each_other(root: Path) -> list[str]:
    games = game_packages(root)
    known = modules(root, ("domain",))
    bad = []
    for name, path in known.items():
        parts = name.split(".")
        if len(parts) < 2 or parts[1] not in games:
            continue
        for target, line in imported(name, path, known):
            t = target.split(".")
            if t[0] == "domain" and len(t) > 1 and t[1] in games - {parts[1]}:
                bad.append(f"{path.relative_to(root)}:{line} imports {target}")
    return bad


def projections_importing_the_service(root: Path) -> list[str]:
    return [f"{path.relative_to(root)}:{line} imports {target}"
            for name, path in modules(root, ("projections",)).items()
            for target, line in imported(name, path) if target.split(".")[0] == "service"]


def app_state_readers(root: Path) -> list[str]:
    """Reads of the application's state (`app.state`, `request.app.state`, `scope["app"].state`)
    outside the composition root, the app factory and the lifespan."""
    bad = []
    for path in modules(root, ("service",)).values():
        where = str(path.relative_to(root))
        if where in APP_STATE_READERS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "state" and _names_app(node.value):
                bad.append(f"{where}:{node.lineno} reads the app's state")
    return bad


def composition_root_importers(root: Path) -> list[str]:
    """Imports of the composition root (`service.container`, or a name from it) by a module of the edge other
    than the app factory."""
    bad = []
    for name, path in modules(root, ("service",)).items():
        where = str(path.relative_to(root))
        if layer_of(name) != "edge" or where in ROOT_IMPORTERS_IN_THE_EDGE:
            continue
        bad += [f"{where}:{line} imports {target}" for target, line in imported(name, path, members=True)
                if target == "service.container" or target.startswith("service.container.")]
    return bad


def database_handles(root: Path) -> list[str]:
    """Outside `POOL_HOLDERS`: imports of a database driver, any attribute named `pool` (read, written, or
    by `getattr`/`hasattr`/`setattr`) and any call of an `acquire()`: only the store touches the database."""
    bad = []
    for name, path in modules(root).items():
        if any(name == holder or name.startswith(holder + ".") for holder in POOL_HOLDERS):
            continue
        where = path.relative_to(root)
        bad += [f"{where}:{line} imports {target}" for target, line in imported(name, path)
                if target.split(".")[0] in DRIVERS]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "pool":
                bad.append(f"{where}:{node.lineno} touches .pool")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "acquire":
                bad.append(f"{where}:{node.lineno} calls acquire()")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) > 1
                  and isinstance(node.args[1], ast.Constant) and node.args[1].value == "pool"):
                bad.append(f"{where}:{node.lineno} looks up .pool by name")
    return bad


def _names_app(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "app"
    if isinstance(node, ast.Attribute):
        return node.attr == "app"
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "app"
    return False


def sdk_imports(root: Path) -> list[str]:
    """Imports of the SDK from the service outside `SDK_USERS`, and of the project from the SDK."""
    bad = [f"{path.relative_to(root)}:{line} imports {target}"
           for name, path in modules(root).items() if not name.startswith(SDK_USERS)
           for target, line in imported(name, path) if target.split(".")[0] == SDK]
    for path in sorted((root / SDK_DIR).rglob("*.py")):
        name = ".".join(path.relative_to(root / SDK_DIR.parent).with_suffix("").parts)
        bad += [f"{path.relative_to(root)}:{line} imports {target}" for target, line in imported(name, path)
                if target.split(".")[0] in PACKAGES]
    return bad


# cross-cutting suites: each tests the whole from one side (the contract, a real deployment, the browser, ...)
CROSS_CUTTING = ("e2e", "contract", "web", "browser", "deploy", "bench", "sdk_typescript")


def misplaced_tests(root: Path) -> list[str]:
    """Test modules outside the room they test: `tests/<package>/...` mirrors `domain`, `projections` and
    `service` (a test of `service/edge` lives in `tests/service/edge/`, of `domain/tikal` in `tests/domain/tikal/`
    or `tests/domain/`), and the cross-cutting suites have their own folders; nothing else holds a test."""
    tests = root / "tests"
    bad = []
    for path in sorted(tests.rglob("test_*.py")):
        parts = path.relative_to(tests).parts
        if len(parts) == 1:
            ok = parts[0] == "test_architecture.py"
        elif parts[0] in CROSS_CUTTING:
            ok = True
        elif parts[0] in PACKAGES:
            rooms = parts[1:-1]
            ok = (root / parts[0] / Path(*rooms)).is_dir() if rooms else parts[0] != "service"
        else:
            ok = False
        if not ok:
            bad.append(str(path.relative_to(root)))
    return bad


# what stands without the tests: the benchmarks, and the support they share with the tests (`testkit`)
STANDALONE = ("bench", "testkit")


def imports_of_tests(root: Path) -> list[str]:
    """Imports of `tests` from `STANDALONE` folders: a benchmark runs from a checkout without its tests,
    so what both need lives in `testkit/`, which the tests import and never the other way round."""
    bad = []
    for name, path in modules(root, tuple(top for top in STANDALONE if (root / top).is_dir())).items():
        bad += [f"{path.relative_to(root)}:{line} imports {target}" for target, line in imported(name, path)
                if target.split(".")[0] == "tests"]
    return bad


RULES = {
    "cycles": cycles, "upward_imports": upward_imports, "games_outside_catalogue": game_imports_outside_the_catalogue,
    "internal_imports": internal_imports, "framework_internals": framework_internals, "oversized": oversized, "impure_domain": impure_domain_imports,
    "games_importing_each_other": games_importing_each_other,
    "projections_importing_the_service": projections_importing_the_service, "app_state_readers": app_state_readers,
    "sdk_imports": sdk_imports, "database_handles": database_handles, "misplaced_tests": misplaced_tests,
    "imports_of_tests": imports_of_tests, "composition_root_importers": composition_root_importers,
}


# ---------------------------------------------------------------------------------------------- the project


@pytest.mark.parametrize("rule", sorted(RULES))
def test_the_project_keeps_the_rule(rule):
    assert sorted(set(map(str, RULES[rule](ROOT)))) == [], f"{rule} broken"


def test_every_service_sub_package_has_its_place_and_says_what_it_may_import():
    service = ROOT / "service"
    subs = sorted(p.name for p in service.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert set(subs) <= set(SERVICE_LAYERS), subs
    for sub in subs:
        doc = ast.get_docstring(ast.parse((service / sub / "__init__.py").read_text()))
        assert doc and "import" in doc, f"service/{sub}/__init__.py must say what lives there and what it may import"
    loose = sorted(p.name for p in service.glob("*.py") if p.name != "__init__.py")
    assert len(loose) <= 3, f"modules directly in service/: {loose}"


# ---------------------------------------------------------------------------------------------- planted violations


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for top in PACKAGES:
        (tmp_path / top).mkdir(exist_ok=True)
        (tmp_path / top / "__init__.py").touch()
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(tmp_path).parents:
            if str(parent) != ".":
                (tmp_path / parent / "__init__.py").touch()
        path.write_text(text)
    return tmp_path


GAME = {"domain/tikal/game.py": "", "domain/coatl/game.py": "", "domain/table/game.py": "",
        "domain/catalog.py": "import domain.tikal.game\nfrom domain.coatl.game import GAME\n"}
PLANTED = {
    "cycles": {"service/ops/a.py": "from service.ops import b\n", "service/ops/b.py": "from .a import x\n"},
    "upward_imports": {"service/store/s.py": "from service.edge.app import create_app\n", "service/edge/app.py": ""},
    "games_outside_catalogue": {**GAME, "service/commands/c.py": "from domain.tikal.game import GAME\n"},
    "internal_imports": {"service/edge/app.py": "from litestar._asgi.utils import wrap_in_exception_handler\n"},
    "framework_internals": {"service/edge/app.py": "from litestar.utils.scope.state import ScopeState\n"},
    "oversized": {"domain/long.py": "def f():\n" + "    x = 1\n" * 60},
    "impure_domain": {"domain/kernel.py": "import asyncio\n"},
    "games_importing_each_other": {**GAME, "domain/coatl/rules.py": "from domain.tikal import game\n"},
    "projections_importing_the_service": {"projections/runner.py": "from service.store import postgres\n"},
    "app_state_readers": {"service/edge/routes.py": "def f(request):\n    return request.app.state.services\n"},
    "composition_root_importers": {"service/container.py": "", "service/edge/routes/games.py":
                                   "from service.container import Services\n"},
    "sdk_imports": {"service/edge/app.py": "from stela_client import Client\n",
                    "clients/python/stela_client/client.py": "from service.ops import settings\n"},
    "database_handles": {"service/commands/arenas.py": "async def f(self):\n    return await self.store.pool.fetch()\n",
                         "service/edge/errors.py": "import asyncpg\n"},
    "misplaced_tests": {"service/edge/app.py": "", "tests/service/test_flat.py": "", "tests/service/nowhere/test_x.py": "",
                        "tests/service/edge/test_fine.py": "", "tests/stray/test_y.py": ""},
    "imports_of_tests": {"bench/http.py": "from tests.support.api import player\n",
                         "testkit/live.py": "import tests.conftest\n"},
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_the_rule_fails_on_a_planted_violation(rule, tmp_path):
    assert RULES[rule](_tree(tmp_path, PLANTED[rule])), f"{rule} did not see its planted violation"


def test_a_bots_package_may_not_import_the_server(tmp_path):
    root = _tree(tmp_path, {"service/bots/b.py": "from service.commands import pipeline\n",
                            "service/commands/pipeline.py": ""})
    assert upward_imports(root)


def test_every_way_of_touching_the_database_is_seen_outside_the_store_and_none_inside(tmp_path):
    handles = {"import asyncpg\n", "from asyncpg.exceptions import DataError\n",
               "def f(store):\n    return store.pool\n", "def f(self, pool):\n    self.pool = pool\n",
               "async def f(db):\n    async with db.acquire() as conn:\n        pass\n",
               "def f(store):\n    return getattr(store, 'pool', None)\n"}
    for i, text in enumerate(sorted(handles)):
        (tmp_path / f"out{i}").mkdir()
        (tmp_path / f"in{i}").mkdir()
        outside = _tree(tmp_path / f"out{i}", {"service/commands/c.py": text})
        assert database_handles(outside), text
        inside = _tree(tmp_path / f"in{i}", {"service/store/s.py": text, "projections/p.py": text})
        assert not database_handles(inside), text


def test_a_package_or_a_private_name_imported_by_name_from_its_parent_is_seen(tmp_path):
    for sub in ("a", "b", "c", "d", "e", "f"):
        (tmp_path / sub).mkdir()
    by_name = {**GAME, "domain/catalog.py": "from domain import tikal, coatl\n"}
    assert game_packages(_tree(tmp_path / "a", by_name)) == {"tikal", "coatl"}
    assert game_imports_outside_the_catalogue(_tree(tmp_path / "b", {**GAME, "service/commands/c.py":
                                                                     "from domain import tikal\n"}))
    assert game_imports_outside_the_catalogue(_tree(tmp_path / "c", {**GAME, "bench/b.py":
                                                                     "import domain.coatl.game\n"}))
    assert games_importing_each_other(_tree(tmp_path / "d", {**GAME, "domain/coatl/rules.py":
                                                             "from domain import tikal\n"}))
    assert internal_imports(_tree(tmp_path / "e", {"service/edge/app.py": "from litestar import _asgi\n"}))
    assert not internal_imports(_tree(tmp_path / "f", {"service/edge/app.py": "from msgspec import __version__\n"}))


def test_the_sdk_rule_sees_each_side_and_lets_the_bots_use_the_sdk(tmp_path):
    for sub in "abc":
        (tmp_path / sub).mkdir()
    assert sdk_imports(_tree(tmp_path / "a", {"service/edge/app.py": "import stela_client.models\n"}))
    assert sdk_imports(_tree(tmp_path / "b", {"clients/python/stela_client/m.py": "import domain.kernel\n"}))
    assert not sdk_imports(_tree(tmp_path / "c", {"service/bots/play.py": "from stela_client import Client\n",
                                                  "clients/python/stela_client/m.py": "import msgspec\n"}))


def test_the_rules_accept_a_clean_tree(tmp_path):
    root = _tree(tmp_path, {**GAME, "service/ops/a.py": "import json\n", "service/container.py": "",
                            "service/edge/app.py": "from service.ops import a\nfrom service.container import Services\n",
                            "domain/tikal/rules.py": "from domain.tikal import game\n",
                            "service/commands/p.py": "from domain.table import game\n",
                            "bench/http.py": "from testkit.api import player\n", "testkit/api.py": "import httpx\n"})
    assert {rule: check(root) for rule, check in RULES.items()} == {rule: [] for rule in RULES}


# ---------------------------------------------------------------------------------------------- the contract


def test_openapi_json_is_generated_from_the_app_and_in_sync():
    from service.edge.openapi import render

    committed = (ROOT / "openapi" / "openapi.json").read_text()
    assert committed == render(), "openapi/openapi.json drifted: run `make openapi` and commit it"


def test_every_operation_has_a_summary_an_id_and_error_responses():
    doc = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    for path, item in doc["paths"].items():
        for method, op in item.items():
            assert op.get("summary") and op.get("operationId"), (method, path)
            if path.startswith("/v1"):
                errors = [code for code in op["responses"] if code.startswith("4")]
                assert errors, f"{method} {path} documents no error response"
                for code in errors:
                    content = op["responses"][code]["content"]
                    assert "application/problem+json" in content, (method, path, code)
                    assert content["application/problem+json"].get("examples"), (method, path, code)


def test_every_python_folder_is_a_regular_package_so_installs_ship_it():
    missing = [str(d.relative_to(ROOT)) for top in PACKAGES
               for d in [ROOT / top, *(ROOT / top).rglob("*")]
               if d.is_dir() and d.name != "__pycache__" and any(d.glob("*.py")) | any(d.glob("*.sql"))
               and not (d / "__init__.py").exists()]
    assert not missing, missing


# ---------------------------------------------------------------------------------------------- the tiers


def test_a_test_is_marked_by_its_fixtures_its_imports_and_its_folder():
    import types

    from tests import tiers

    def item(path: str, fixtures=(), module_globals=None, body=None):
        module = types.ModuleType("tests.x.test_y")
        module.__dict__.update(module_globals or {})
        return types.SimpleNamespace(path=tiers.ROOT / path, fixturenames=list(fixtures), module=module,
                                     function=body or (lambda: None))

    def imports_redis_inside():
        import redis.asyncio  # noqa: F401

    from tests.conftest import fresh_database
    from testkit.live import serving
    assert tiers.needs(item("tests/domain/test_kernel.py")) == set()
    assert tiers.needs(item("tests/service/edge/test_a.py", fixtures=["client", "settings", "pg_dsn"])) == {"pg"}
    assert tiers.needs(item("tests/service/edge/test_a.py", module_globals={"fresh_database": fresh_database,
                                                                            "serving": serving})) == {"pg", "server"}
    assert tiers.needs(item("tests/service/edge/test_a.py", body=imports_redis_inside)) == {"redis"}
    assert {"browser", "server", "pg"} <= tiers.needs(item("tests/web/test_bot_games.py"))
    assert "node" in tiers.needs(item("tests/sdk_typescript/test_sdk_typescript.py"))


def test_every_set_of_markers_is_in_exactly_one_tier():
    from itertools import combinations

    from tests import tiers

    for n in range(len(tiers.SLOWER) + 1):
        for marks in combinations(tiers.SLOWER, n):
            assert sum(holds(set(marks)) for holds in tiers.TIERS.values()) == 1, marks


def test_a_tier_that_selects_no_test_fails_the_run(monkeypatch, capsys, tmp_path):
    from tests import run_tiers

    def run(session, tiers, present=("check", "service")):  # a session's JUnit report, as tests/tiers.py marks it
        cases = "".join(f'<testcase classname="t" name="{t}" time="1"><properties><property name="tier" value="{t}"/>'
                        f'<property name="started" value="0"/></properties></testcase>' for t in tiers if t in present)
        (tmp_path / f"{session}.xml").write_text(f"<testsuites><testsuite>{cases}</testsuite></testsuites>")
        return 0, 1.0

    monkeypatch.setattr(run_tiers, "run", run)
    monkeypatch.setattr(run_tiers, "REPORTS", tmp_path)
    assert run_tiers.main(["check", "service", "browser"]) == 1
    assert "browser" in capsys.readouterr().out.split("no test selected")[0].splitlines()[-1]
    assert run_tiers.main(["check", "service"]) == 0
    monkeypatch.setattr(run_tiers, "run", lambda session, tiers: (run(session, tiers)[0] + 1, 1.0))
    assert run_tiers.main(["check"]) == 1
    assert run_tiers.main(["nonsense"]) == 2


class _Item:
    """What tiers.longest_first reads of a pytest item: its id and its xdist_group marker."""

    def __init__(self, nodeid: str, group: str | None = None) -> None:
        self.nodeid, self.marks = nodeid, [pytest.mark.xdist_group(group).mark] if group else []

    def iter_markers(self, name: str) -> list:
        return [m for m in self.marks if m.name == name]


def test_a_test_is_keyed_by_its_junit_name_without_the_group_xdist_appends():
    from tests import tiers

    assert tiers.key(_Item("tests/service/live/test_sse.py::test_resume[2]@live")) == \
        "tests.service.live.test_sse::test_resume[2]"
    assert tiers.key(_Item("tests/web/test_hand.py::TestHand::test_drag")) == "tests.web.test_hand.TestHand::test_drag"
    assert tiers.ungrouped("tests.a::test_b[x@y]") == "tests.a::test_b[x@y]"  # an @ inside the parameters stays


def test_the_longest_unit_by_the_last_run_goes_first_and_an_untimed_test_counts_by_its_tier():
    from tests import tiers

    short, grouped_a, grouped_b, untimed_slow, timed = (
        _Item("tests/a.py::test_short"), _Item("tests/b.py::test_one", "live"), _Item("tests/c.py::test_two", "live"),
        _Item("tests/d.py::test_new"), _Item("tests/e.py::test_timed"))
    items = [short, grouped_a, untimed_slow, timed, grouped_b]
    tier_of = {short: "service", grouped_a: "service", grouped_b: "service", untimed_slow: "slow", timed: "browser"}
    seconds = {"tests.a::test_short": 1.0, "tests.b::test_one": 2.0, "tests.c::test_two": 3.0,
               "tests.e::test_timed": 12.0}
    # the untimed slow test counts 30 s, the timed browser test 12, the group 2 + 3 together, the short one 1
    assert tiers.longest_first(items, tier_of, seconds) == [untimed_slow, timed, grouped_a, grouped_b, short]
    # with nothing timed, the tiers' guesses order them: slow, browser, then the group of two service tests
    assert tiers.longest_first(items, tier_of, {}) == [untimed_slow, timed, grouped_a, grouped_b, short]
    assert tiers.longest_first(items, tier_of, {"tests.a::test_short": 100.0})[0] is short


def test_xdist_keeps_a_group_on_one_worker_with_the_pinned_pytest(tmp_path):
    """The suite's `xdist_group`s (one TypeScript build folder, the embedded PostgreSQL's data directory, the
    live deployment) hold only if xdist's loadgroup still names each grouped test's unit: with pytest 9.2 it
    silently stopped (its node ids are no longer the string xdist rewrites; pytest-xdist issue 1386), and CI
    ran the TypeScript SDK's three tests at once, two of them emptying and compiling the same build/ under the
    third. pyproject.toml pins pytest 9.1.1 until xdist follows; this fails on a pytest that splits a group."""
    import os
    import subprocess
    import sys

    (tmp_path / "test_grouped.py").write_text(
        "import os, time, pytest\n"
        "pytestmark = pytest.mark.xdist_group('one')\n"
        "@pytest.mark.parametrize('i', range(4))\n"
        "def test_where(i):\n"
        "    time.sleep(0.2)\n"
        "    with open('where.txt', 'a') as f:\n"
        "        f.write(os.environ['PYTEST_XDIST_WORKER'] + '\\n')\n")
    # xdist alone of the installed plugins (the others' imports cost each of the three processes seconds)
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "xdist.plugin", "-p", "no:cacheprovider", "-q",
                           "-n", "2", "--dist", "loadgroup", "--rootdir", str(tmp_path), "-c", "/dev/null",
                           "test_grouped.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    workers = (tmp_path / "where.txt").read_text().split()
    assert len(workers) == 4 and len(set(workers)) == 1, workers


def test_every_framework_module_listed_as_internal_says_so_itself_and_is_still_used_where_allowed():
    for module, allowed in INTERNAL_BY_WORD.items():
        found = _framework_module(module)
        assert found is not None and _INTERNAL_WORD.search(Path(found[1]).read_text()), module
        for where in allowed:
            path = ROOT / where
            name = where.removesuffix(".py").replace("/", ".")
            assert any(t == module or t.startswith(module + ".") for t, _ in imported(name, path, members=True)), \
                f"{where} no longer imports {module}: take it off the list"
