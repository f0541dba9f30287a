"""The README's API tour in Python (section "Python SDK") runs exactly as written against a real
`stela serve`, through the SDK; beside it `test_readme_tour.py` runs the curl tour."""

from __future__ import annotations

import ast
import subprocess
import sys

from tests.e2e.readme import block, served


def test_the_readme_sdk_tour_runs_as_written():
    script = block("Python SDK", "python")
    assert "stela_client" in script and ".legal(" in script and ".command(" in script and "game_stream" in script
    with served("stela_tour_sdk") as port:
        script = script.replace("localhost:8000", f"127.0.0.1:{port}")
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    kinds, to_act, command, played, snapshot = done.stdout.strip().split("\n")
    assert "coatl" in ast.literal_eval(kinds) and 0 in ast.literal_eval(to_act)
    assert ast.literal_eval(command)["type"].startswith("coatl.")
    version = int(played.split()[0])
    assert played.split()[1].startswith("['coatl.") and len(played.split()) >= 4
    assert snapshot.split() == ["snapshot", str(version), "active"]  # the stream caught up with the command
