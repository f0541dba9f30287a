"""Every hosted game, played to the end through the HTTP API, exports a log that verifies offline."""

from __future__ import annotations

import pytest

from domain.catalog import GAMES
from service.commands.verify import parse_ndjson, verify_log
from tests.support.api import play_to_end, started_game

KINDS = sorted(GAMES)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_full_game_over_http_ends_with_an_outcome_and_a_verifiable_export(client, kind):
    players = GAMES[kind].max_players if kind != "goldmine" else 4
    game_id, seated = await started_game(client, kind, players)
    final = await play_to_end(client, game_id, seated, seed=7, max_commands=20000)
    assert final["status"] == "finished"
    assert len(final["outcome"]["scores"]) == players and final["outcome"]["winners"]
    export = await client.get(f"/v1/games/{game_id}/export")
    assert export.status_code == 200
    report = verify_log(parse_ndjson(export.content), GAMES)
    assert report.ok, report.problems[:5]
    assert report.outcome == {k: final["outcome"][k] for k in report.outcome}
