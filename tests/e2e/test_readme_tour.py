"""The README's API tour runs exactly as written (curl and jq against a real `stela serve`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import fresh_database
from tests.support.live import free_port, wait_healthy

README = Path(__file__).parents[2] / "README.md"


def tour() -> str:
    """The first sh block under "Using the API"."""
    text = README.read_text()
    section = text[text.index("## Using the API"):]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1)


def test_the_readme_api_tour_runs_as_written():
    script = tour()
    assert "/legal" in script and "commands" in script
    port = free_port()
    # the last line follows the stream forever: give it a few seconds, then the tour is over
    script = script.replace("localhost:8000", f"127.0.0.1:{port}").replace("curl -N ", "timeout 3 curl -N ")
    lines = script.rstrip("\n").split("\n")
    lines[-1] += " || true"
    with fresh_database("stela_tour") as dsn:
        env = {**os.environ, "DATABASE_URL": dsn, "STELA_PORT": str(port), "STELA_LOG_LEVEL": "warning",
               "STELA_METRICS_PORT": str(free_port())}
        env.pop("REDIS_URL", None)
        server = subprocess.Popen([str(Path(sys.executable).with_name("stela")), "serve"], env=env,
                                  stderr=subprocess.DEVNULL)
        try:
            wait_healthy(f"http://127.0.0.1:{port}", server)
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", "\n".join(lines)], capture_output=True,
                                  text=True, timeout=120)
        finally:
            server.terminate()
            server.wait(30)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert '"coatl"' in out and "event: snapshot" in out
    assert '"code"' not in out, f"an API call in the tour was refused:\n{out}"
