"""The README's tours as the tests run them: a code block of a section, and a `stela serve` to run it against."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import fresh_database
from testkit.live import free_port, wait_healthy

README = Path(__file__).parents[2] / "README.md"


def block(section: str, language: str) -> str:
    """The first `language` code block under the README's `## section`."""
    text = README.read_text()
    rest = text[text.index(f"## {section}"):]
    found = re.search(rf"```{language}\n(.*?)```", rest, re.S)
    assert found, f"no {language} block under {section!r}"
    return found.group(1)


@contextmanager
def served(prefix: str) -> Iterator[int]:
    """A `stela serve` on a fresh database, without Redis; yields its port."""
    port = free_port()
    with fresh_database(prefix) as dsn:
        env = {**os.environ, "DATABASE_URL": dsn, "STELA_PORT": str(port), "STELA_LOG_LEVEL": "warning",
               "STELA_METRICS_PORT": str(free_port())}
        env.pop("REDIS_URL", None)
        server = subprocess.Popen([str(Path(sys.executable).with_name("stela")), "serve"], env=env,
                                  stderr=subprocess.DEVNULL)
        try:
            wait_healthy(f"http://127.0.0.1:{port}", server)
            yield port
        finally:
            server.terminate()
            server.wait(30)
