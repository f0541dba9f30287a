"""The access line, written without structlog's processor chain, reads as structlog would write it."""

from __future__ import annotations

import json

import msgspec
import structlog
from litestar.testing import AsyncTestClient

from service.ops import logging as stela_logging
from service.edge.app import create_app
from testkit.api import player


async def test_the_access_line_is_the_structlog_line_it_replaces(settings, games, capfd):
    app = create_app(msgspec.structs.replace(settings, log_level="info"), games=games)
    async with AsyncTestClient(app, timeout=30) as client:
        ann = await player(client)
        capfd.readouterr()
        resp = await client.get("/v1/players/me", headers={**ann["headers"], "X-Request-ID": "req-1"})
        assert resp.status_code == 200 and resp.headers["x-request-id"] == "req-1"
    lines = [json.loads(line) for line in capfd.readouterr().err.splitlines() if '"event":"request"' in line]
    access = next(line for line in lines if line["path"] == "/v1/players/me")
    assert access["request_id"] == "req-1" and access["player_id"] == ann["id"] and access["status"] == 200

    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(request_id="req-1", game_id=None)
    structlog.get_logger("stela.http").info("request", method="GET", path="/v1/players/me", status=200,
                                           latency_ms=1.0, player_id=ann["id"])
    structlog.contextvars.clear_contextvars()
    reference = json.loads(capfd.readouterr().err.splitlines()[-1])
    assert set(access) == set(reference)  # (structlog's order of context keys varies from process to process)
    assert access["timestamp"].endswith("Z") and len(access["timestamp"]) == len(reference["timestamp"])
    assert {k: v for k, v in access.items() if k not in ("timestamp", "latency_ms")} == \
        {k: v for k, v in reference.items() if k not in ("timestamp", "latency_ms")}


def test_request_ids_are_24_hex_digits_and_differ():
    ids = {stela_logging._new_request_id() for _ in range(1000)}
    assert len(ids) == 1000 and all(len(i) == 24 and int(i, 16) >= 0 for i in ids)


def test_a_library_line_logged_after_its_stderr_closed_goes_to_the_stderr_of_now(monkeypatch):
    """A test's captured stderr closes when the test ends while a thread of the session (a served site, a bot
    worker) still logs: its lines go to the stderr of now, never to the closed stream (which printed a
    traceback from that thread; on CPython 3.11.7 one racing pytest's own ast.parse crashed an xdist worker)."""
    import io
    import logging
    import sys

    root = logging.getLogger()
    kept = (root.handlers[:], root.level)
    then, now = io.TextIOWrapper(io.BytesIO()), io.TextIOWrapper(io.BytesIO())
    try:
        monkeypatch.setattr(sys, "stderr", then)
        stela_logging.configure("info")
        then.close()
        monkeypatch.setattr(sys, "stderr", now)
        logging.getLogger("httpx").info("HTTP Request: POST /v1/bots/leases")
        now.flush()
        written = now.buffer.getvalue().decode()
        assert "Logging error" not in written, written
        assert any("/v1/bots/leases" in json.dumps(json.loads(line)) for line in written.splitlines()), written
    finally:
        root.handlers[:], _ = kept
        root.setLevel(kept[1])
        now.close()
