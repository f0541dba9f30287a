"""Architecture rules: imports point one way, the domain stays pure, the OpenAPI file matches the app."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOMAIN_ALLOWED = {"msgspec", "domain", "__future__", "typing", "typing_extensions", "dataclasses", "enum",
                  "functools", "itertools", "collections", "hashlib", "math", "json", "importlib", "pathlib",
                  "abc", "operator", "heapq", "bisect", "re", "string", "fractions", "copy", "types",
                  "xml", "html", "textwrap", "statistics"}
FORBIDDEN_EVERYWHERE_IN_DOMAIN = {"random", "time", "datetime", "asyncio", "os", "socket", "subprocess",
                                  "threading", "service", "projections", "litestar", "asyncpg", "redis"}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_domain_imports_only_the_standard_library_msgspec_and_itself():
    offenders = {}
    for path in (ROOT / "domain").rglob("*.py"):
        bad = imports_of(path) & FORBIDDEN_EVERYWHERE_IN_DOMAIN
        unknown = imports_of(path) - DOMAIN_ALLOWED
        if bad or unknown:
            offenders[str(path.relative_to(ROOT))] = sorted(bad | unknown)
    assert not offenders, offenders


def test_game_packages_never_import_each_other():
    games = [p.name for p in (ROOT / "domain").iterdir() if p.is_dir() and (p / "game.py").exists()]
    for game in games:
        for path in (ROOT / "domain" / game).rglob("*.py"):
            text = path.read_text()
            for other in games:
                if other != game:
                    assert f"domain.{other}" not in text, f"{path} imports domain.{other}"


def test_projections_never_import_the_service():
    for path in (ROOT / "projections").rglob("*.py"):
        assert "service" not in imports_of(path), path


def test_openapi_json_is_generated_from_the_app_and_in_sync():
    from service.edge.openapi import render

    committed = (ROOT / "openapi" / "openapi.json").read_text()
    assert committed == render(), "openapi/openapi.json drifted: run `make openapi` and commit it"


def test_every_operation_has_a_summary_an_id_and_error_responses():
    import json

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
    missing = [str(d.relative_to(ROOT)) for top in ("domain", "projections", "service")
               for d in [ROOT / top, *(ROOT / top).rglob("*")]
               if d.is_dir() and d.name != "__pycache__" and any(d.glob("*.py")) | any(d.glob("*.sql"))
               and not (d / "__init__.py").exists()]
    assert not missing, missing


def test_routes_receive_collaborators_by_injection_and_raise_no_http_statuses():
    for path in sorted((ROOT / "service").rglob("*.py")):
        if path.name in ("sse.py", "fanout.py"):
            continue  # (owned by the streams; they take the service they are given)
        text = path.read_text()
        if path.parent.name == "routes":
            assert "app.state" not in text, f"{path} reaches into application state"
        if path.name != "errors.py":
            assert "Problem(" not in text, f"{path} raises an HTTP status itself; map an exception in errors.py"
