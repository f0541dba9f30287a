"""Installed Stela runs its bots: the `stela` distribution alone, installed into a fresh virtualenv from the
files the image is built from (pip's cache makes the dependencies quick; no pip inside the new environment
and no byte-compiling), imports every module of
`service/` and `stela bot-worker` plays a whole bot game against a `stela serve --no-bots` of the same
install. Before the SDK shipped inside the distribution, `stela bot-worker` died there with
`ModuleNotFoundError: No module named 'stela_client'`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import fresh_database
from testkit.live import free_port, wait_healthy

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("installed")]

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "domain", "projections", "service", "clients/python/stela_client")  # as the Dockerfile
ADMIN = "installed-bot-worker-admin-token-0123456789"
GAME_DEADLINE = 600.0

IMPORT_ALL = """
import importlib, json, pkgutil, service, stela_client
names = sorted(m.name for m in pkgutil.walk_packages(service.__path__, "service."))
for name in names:
    if not name.endswith(".__main__"):  # an entry point: importing it runs the command
        importlib.import_module(name)
print(json.dumps({"service": service.__file__, "sdk": stela_client.__file__, "modules": names}))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The bin/ folder of a fresh virtualenv holding `pip install <the image's build inputs>` and nothing else
    (the distribution and what it declares)."""
    home = tmp_path_factory.mktemp("installed")
    source = home / "src"
    for part in SOURCES:
        if (ROOT / part).is_dir():
            shutil.copytree(ROOT / part, source / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (source / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / part, source / part)
    # a virtualenv without pip of its own (ensurepip took ~8 s), filled by this interpreter's pip through
    # `--python`; no byte-compiling of the dependencies (~20 s): the imports below compile what they load
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(home / "venv")], check=True, timeout=300)
    bin_ = home / "venv" / "bin"
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(bin_ / "python"), "install", "--quiet",
                           "--no-compile", str(source)], capture_output=True, text=True, timeout=1800, cwd=home)
    assert done.returncode == 0, done.stderr[-4000:]
    return bin_


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without anything that would reach the checkout (PYTHONPATH) or configure Stela."""
    env = {k: v for k, v in os.environ.items()
           if k != "PYTHONPATH" and not k.startswith("STELA_") and k not in ("DATABASE_URL", "REDIS_URL")}
    return {**env, **extra}


def test_every_module_of_the_service_imports_from_the_installed_distribution(installed):
    done = subprocess.run([str(installed / "python"), "-c", IMPORT_ALL], capture_output=True, text=True,
                          timeout=300, cwd=installed.parent, env=clean_env())
    assert done.returncode == 0, done.stderr[-4000:]
    found = json.loads(done.stdout)
    site = str(installed.parent)
    assert found["service"].startswith(site) and found["sdk"].startswith(site), found  # not the checkout's
    checkout = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                      for p in (ROOT / "service").rglob("*.py") if "static" not in p.parts)
    assert found["modules"] == [name for name in checkout if name != "service"]


def test_the_installed_bot_worker_plays_a_whole_bot_game(installed, tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with fresh_database("stela_installed") as dsn:
        env = clean_env(DATABASE_URL=dsn, STELA_PORT=str(port), STELA_METRICS_PORT="0", STELA_ADMIN_TOKEN=ADMIN)
        processes = []
        try:
            with open(tmp_path / "serve.log", "wb") as sink:
                processes.append(subprocess.Popen([str(installed / "stela"), "serve", "--no-bots"], env=env,
                                                  cwd=tmp_path, stdout=sink, stderr=sink))
            wait_healthy(url, processes[0], timeout=120)
            who = httpx.post(f"{url}/v1/players", json={"name": "Host"}).json()
            game = httpx.post(f"{url}/v1/games", headers={"Authorization": f"Bearer {who['token']}"},
                              json={"kind": "coatl", "seats": 2, "join": False, "bots": [{}, {"strategy": "random"}]})
            assert game.status_code == 201, game.text
            with open(tmp_path / "worker.log", "wb") as sink:
                processes.append(subprocess.Popen([str(installed / "stela"), "bot-worker", "--url", url, "--token",
                                                   ADMIN, "--name", "installed"], env=env, cwd=tmp_path,
                                                  stdout=sink, stderr=sink))
            deadline = time.monotonic() + GAME_DEADLINE
            while (status := httpx.get(f"{url}/v1/games/{game.json()['id']}").json()["status"]) != "finished":
                assert processes[1].poll() is None, (tmp_path / "worker.log").read_text()[-4000:]
                assert time.monotonic() < deadline, f"the bots' game is still {status}"
                time.sleep(0.2)
        finally:
            for process in reversed(processes):
                process.terminate()
                process.wait(60)
    assert b"ModuleNotFoundError" not in (tmp_path / "worker.log").read_bytes()
