"""End to end: 16 random bots play a 3-round Swiss of 4-seat Cóatl over HTTP + SSE, clocks on.

The bots are the load generator's tournament mode (`service.bots.loadtest`): every player is its
own HTTP client that learns of its games and turns from its personal stream; the service pairs the
rounds, creates the games and advances by itself. Afterwards every game's exported log and the tournament's pairings verify.
"""

from __future__ import annotations

import asyncio

import httpx

from service.edge.app import create_app
from service.bots.loadtest import Config, run
from service.commands.competition import verify_competition
from service.commands.verify import parse_ndjson, verify_log
from testkit.live import serving


def app_with_tournaments(settings, games):
    return create_app(settings, games=games)  # the app starts the tournament runner and timeout worker


async def audit(url: str, tid: str, games) -> dict:
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        deadline = asyncio.get_running_loop().time() + 60
        while tid not in [t["tournament_id"] for t in (await http.get(  # the list follows the log within moments
                "/v1/tournaments", params={"status": "finished", "kind": "coatl"})).json()["items"]]:
            assert asyncio.get_running_loop().time() < deadline, "the finished tournament never reached the list"
            await asyncio.sleep(0.1)
        view = (await http.get(f"/v1/tournaments/{tid}")).json()
        events = (await http.get(f"/v1/tournaments/{tid}/events")).json()["events"]
        pairing = verify_competition([(e["type"], e["data"]) for e in events])
        reports = [verify_log(parse_ndjson((await http.get(f"/v1/games/{t['game_id']}/export")).content), games)
                   for r in view["rounds"] for t in r["tables"]]
    return {"view": view, "pairing": pairing, "reports": reports}


def test_sixteen_bots_play_a_three_round_swiss_of_coatl_to_final_standings_every_game_verified(settings, games):
    config = Config(url="", players=16, seats=4, kind="coatl", mode="tournament", rounds=3, concurrency=8,
                    options={"sacrifice_tokens": False}, time_control={"per_move_seconds": 30})
    with serving(app_with_tournaments(settings, games)) as url:
        out = asyncio.run(run(Config(**{**config.__dict__, "url": url})))
        found = asyncio.run(audit(url, out["tournament_id"], games))
    assert out["errors"] == 0, out
    assert out["games"] == 12 and out["commands"] > 0
    view = found["view"]
    assert view["status"] == "finished" and view["round"] == 3
    assert len(view["standings"]) == 16 and all(s["games"] == 3 for s in view["standings"])
    assert found["pairing"].ok, found["pairing"]
    assert len(found["reports"]) == 12
    assert all(r.ok for r in found["reports"]), [r.problems for r in found["reports"] if not r.ok]
