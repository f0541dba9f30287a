"""The README's code runs as written: each `python` block of clients/python/README.md in its own interpreter,
against a real server, exits 0 and writes nothing to stderr (no "generator didn't stop after athrow()", no
unclosed session or pending task at exit); and a stream left however its loop is left closes cleanly."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def run(script: str, url: str) -> subprocess.CompletedProcess[str]:
    script = script.replace("http://localhost:8000", url)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_each_readme_block_runs_as_written_and_prints_nothing_to_stderr(server, index):
    done = run(BLOCKS[index], server.url)
    assert done.returncode == 0 and done.stderr == "", done.stdout + done.stderr
    assert done.stdout.strip()


def test_the_readme_has_the_tours_the_issue_asks_for():
    text = "\n".join(BLOCKS)
    assert len(BLOCKS) >= 4 and "SyncClient" in text and "ann.stream(" in text and "exchange_code" in text


LEFT = """
import asyncio
from stela_client import Client, SyncClient

async def main() -> None:
    async with Client("http://localhost:8000") as ann:
        await ann.register("Ann")
        game = await ann.create_game("coatl", seats=2)
        async for frame in ann.game_stream(game.id):
            break                                               # left by break
        async def first():
            async for frame in ann.stream([game.id], personal=True):
                return frame                                    # left by return
        await first()
        try:
            async for frame in ann.personal_stream():
                raise KeyError("left by an exception")
        except KeyError:
            pass
        kept = ann.stream([game.id])                            # left open: the client closes it
        await anext(kept)
        return game.id

game_id = asyncio.run(main())
with SyncClient("http://localhost:8000") as bob:
    bob.register("Bob")
    for frame in bob.game_stream(game_id):
        break
print("done")
"""


def test_a_stream_left_by_break_return_or_an_exception_closes_cleanly_at_exit(server):
    done = run(LEFT, server.url)
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stdout + done.stderr
    assert done.stderr == "", done.stderr
