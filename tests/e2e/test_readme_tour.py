"""The README's API tour runs exactly as written (curl and jq against a real `stela serve`); beside it
`test_readme_tour_sdk.py` runs the same tour through the Python SDK."""

from __future__ import annotations

import subprocess

from tests.e2e.readme import block, served


def test_the_readme_api_tour_runs_as_written():
    script = block("Using the API", "sh")
    assert "/legal" in script and "commands" in script
    with served("stela_tour") as port:
        # the last line follows the stream forever: give it a few seconds, then the tour is over
        script = script.replace("localhost:8000", f"127.0.0.1:{port}").replace("curl -N ", "timeout 3 curl -N ")
        lines = script.rstrip("\n").split("\n")
        lines[-1] += " || true"
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", "\n".join(lines)], capture_output=True,
                              text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert '"coatl"' in out and "event: snapshot" in out
    assert '"code"' not in out, f"an API call in the tour was refused:\n{out}"
