"""Every hosted game, played to the end through the Python SDK against a served app, exports a log that
verifies offline."""

from __future__ import annotations

import msgspec
import pytest

from domain.catalog import GAMES
from service.commands.verify import parse_ndjson, verify_log
from tests.e2e.sdk_support import play_out, seated

KINDS = sorted(GAMES)


@pytest.fixture
def url(server):
    """The worker's shared server (tests/conftest.py)."""
    return server


@pytest.mark.parametrize("kind", KINDS)
async def test_a_full_game_over_http_ends_with_an_outcome_and_a_verifiable_export(url, kind):
    players = GAMES[kind].max_players if kind != "goldmine" else 4
    game_id, seated_players = await seated(url, kind, players)
    try:
        final = await play_out(game_id, seated_players, seed=7)
        assert final.status == "finished" and final.outcome is not None
        assert len(final.outcome.scores) == players and final.outcome.winners
        report = verify_log(parse_ndjson(await seated_players[0].export(game_id)), GAMES)
    finally:
        for player in seated_players:
            await player.close()
    assert report.ok, report.problems[:5]
    outcome = msgspec.to_builtins(final.outcome)
    assert report.outcome == {k: outcome[k] for k in report.outcome}
