"""A whole game through the HTTP API on the test game, ending with a verifiable export."""

from domain.catalog import GAMES
from service.commands.verify import parse_ndjson, verify_log
from testkit.api import play_to_end, started_game
from testkit.tally import TALLY


async def test_a_game_played_over_http_ends_with_a_verifiable_export(client):
    game_id, players = await started_game(client, "tally", 3, {"mode": "rolls"})
    final = await play_to_end(client, game_id, players)
    assert final["status"] == "finished" and final["outcome"]["winners"]
    export = await client.get(f"/v1/games/{game_id}/export")
    assert export.status_code == 200
    report = verify_log(parse_ndjson(export.content), {**GAMES, "tally": TALLY})
    assert report.ok, report.problems
    assert report.decisions_checked > 3
