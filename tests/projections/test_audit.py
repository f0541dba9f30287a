"""Tamper evidence: altering one stored event is caught by `verify_log` and `stela verify --all`
for that game only; the other finished games still verify."""

from __future__ import annotations

import asyncio
import json

import asyncpg

from domain.catalog import GAMES
from service.cli.main import main
from service.commands.verify import parse_ndjson, verify_log
from testkit.api import play_to_end, started_game
from testkit.tally import TALLY


async def test_one_altered_event_fails_verification_of_its_game_only(client, pg_dsn, monkeypatch, capsys):
    game_ids = []
    for seed in range(3):
        game_id, players = await started_game(client, "tally", 2, {"mode": "rolls", "target": 8})
        await play_to_end(client, game_id, players, seed=seed)
        game_ids.append(game_id)
    tampered = game_ids[1]
    conn = await asyncpg.connect(pg_dsn)
    try:
        changed = await conn.execute(
            """UPDATE events SET data = jsonb_set(data, '{amount}', to_jsonb((data->>'amount')::int % 6 + 1))
               WHERE stream_id = $1 AND version = (SELECT min(version) FROM events
                                                   WHERE stream_id = $1 AND type = 'tally.Added')""", tampered)
        assert changed == "UPDATE 1"
    finally:
        await conn.close()

    games = {**GAMES, "tally": TALLY}
    for game_id in game_ids:
        export = await client.get(f"/v1/games/{game_id}/export")
        report = verify_log(parse_ndjson(export.content), games)
        assert report.ok == (game_id != tampered), report.problems
        if game_id == tampered:
            assert any("hash mismatch" in p for p in report.problems)

    monkeypatch.setenv("DATABASE_URL", pg_dsn)
    monkeypatch.setitem(GAMES, "tally", TALLY)
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["verify", "--all"]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    failed = [json.loads(line) for line in lines[:-1]]
    assert [f["game_id"] for f in failed] == [tampered]
    assert json.loads(lines[-1]) == {"verified": 3, "failed": 1}
