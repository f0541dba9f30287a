"""The fault suite when its own services do not start: what did start is stopped, and the run's folder (its
logs) is printed, so a failed start leaves neither a stray PostgreSQL nor a silent exit."""

from __future__ import annotations

import asyncio
import json

import pytest

from bench import chaos


class _Started:
    """A stand-in for one of the suite's own services: records its start and stop, or fails to start."""

    log: list[str] = []
    fails = False

    def __init__(self, root) -> None:
        self.name = type(self).__name__

    def start(self) -> None:
        if self.fails:
            raise RuntimeError(f"{self.name} did not start")
        self.log.append(f"start {self.name}")

    def stop(self, *mode: str) -> None:
        self.log.append(f"stop {self.name}")

    dsn = url = "unused"


def test_a_service_that_does_not_start_stops_those_that_did_and_prints_the_run_folder(monkeypatch, tmp_path, capsys):
    log: list[str] = []
    postgres = type("Postgres", (_Started,), {"log": log})
    redis = type("Redis", (_Started,), {"log": log, "fails": True})
    monkeypatch.setattr(chaos, "Postgres", postgres)
    monkeypatch.setattr(chaos, "Redis", redis)
    monkeypatch.setattr(chaos, "workdir", lambda: tmp_path)
    with pytest.raises(RuntimeError, match="Redis did not start"):
        asyncio.run(chaos.run(True, 2, 1, 1, 1, 2.0))
    assert log == ["start Postgres", "stop Postgres"]
    printed = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")]
    assert {"bench": "chaos", "failed": "start", "logs": str(tmp_path)} in printed
