"""The organiser's tools over HTTP: entry conditions, forbidden pairings, pause, late join, annul, adjudicate,
removal, and the report the audit accepts. Organiser-only actions refuse anyone else with 403."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from service.cli.main import main
from service.commands.tournaments import verify_report
from tests.service.commands.test_tournament_service import api, play_round, player  # noqa: F401 - `api` is a fixture
from testkit.api import auth, found


async def test_a_tournament_with_nobody_registered_cannot_be_started(api):  # noqa: F811
    organiser = await player(api, "Org")
    r = await api.post("/v1/tournaments", headers=auth(organiser), json={"kind": "tally", "seats": 2, "rounds": 1})
    tid = r.json()["tournament_id"]
    r = await api.post(f"/v1/tournaments/{tid}/start", headers=auth(organiser))
    assert r.status_code == 409 and r.json()["code"] == "tournament.too_few_players", r.text
    assert r.headers["content-type"].startswith("application/problem+json")


async def wait_round(api, tid: str, after: int) -> dict[str, Any]:  # noqa: F811
    async def advanced() -> Any:
        v = (await api.get(f"/v1/tournaments/{tid}")).json()
        return v if v["status"] == "finished" or v["round"] > after else None

    return await found(advanced)


async def test_the_organiser_runs_a_swiss_with_every_tool_and_publishes_a_report_the_audit_accepts(pg_client, tmp_path):
    api = pg_client  # on PostgreSQL: the tournament list it reads at the end is a read model
    organiser = await player(api, "Org")
    r = await api.post("/v1/tournaments", headers=auth(organiser), json={
        "kind": "tally", "name": "Club night", "options": {"target": 9}, "seats": 2, "rounds": 3,
        "late_join_until": 2, "invitation_code": "club-42"})
    assert r.status_code == 201, r.text
    tid = r.json()["tournament_id"]
    players: dict[str, dict[str, str]] = {}
    stranger = await player(api, "Stranger")
    r = await api.post(f"/v1/tournaments/{tid}/register", headers=auth(stranger), json={"code": "nope"})
    assert r.status_code == 409 and r.json()["code"] == "tournament.not_invited", r.text
    for i in range(6):
        p = await player(api, f"P{i}")
        players[p["id"]] = p
        r = await api.post(f"/v1/tournaments/{tid}/register", headers=auth(p), json={"code": "club-42"})
        assert r.status_code == 200, r.text
    ids = list(players)
    team = ids[:2]
    r = await api.post(f"/v1/tournaments/{tid}/forbidden-pairings", headers=auth(players[ids[2]]),
                       json={"players": team})
    assert r.status_code == 403 and r.json()["code"] == "forbidden", r.text
    r = await api.post(f"/v1/tournaments/{tid}/forbidden-pairings", headers=auth(organiser), json={"players": team})
    assert r.status_code == 200, r.text
    view = (await api.post(f"/v1/tournaments/{tid}/start", headers=auth(organiser))).json()
    assert all(set(team) - set(t["players"]) for t in view["rounds"][0]["tables"])
    # round 1: the organiser adjudicates one game and annuls another while they are still running
    first, second = view["rounds"][0]["tables"][:2]
    r = await api.post(f"/v1/tournaments/{tid}/games/{first['game_id']}/adjudicate",
                       headers=auth(players[first["players"][0]]), json={"ranks": [1, 2]})
    assert r.status_code == 403, r.text
    r = await api.post(f"/v1/tournaments/{tid}/games/{first['game_id']}/adjudicate", headers=auth(organiser),
                       json={"ranks": [2, 1]})
    assert r.status_code == 200 and r.json()["rounds"][0]["tables"][0]["status"] == "adjudicated", r.text
    r = await api.post(f"/v1/tournaments/{tid}/games/{second['game_id']}/annul", headers=auth(organiser))
    assert r.status_code == 200, r.text
    r = await api.post(f"/v1/tournaments/{tid}/games/{second['game_id']}/annul", headers=auth(organiser))
    assert r.status_code == 409 and r.json()["code"] == "tournament.already_annulled"
    paused = ids[5]
    r = await api.post(f"/v1/tournaments/{tid}/pause", headers=auth(players[paused]), json={})
    assert r.status_code == 200, r.text
    late = await player(api, "Late")
    r = await api.post(f"/v1/tournaments/{tid}/register", headers=auth(late), json={"code": "club-42"})
    assert r.status_code == 200, r.text
    players[late["id"]] = late
    await play_round(api, view, players)
    view = await wait_round(api, tid, 1)
    seated = {p for t in view["rounds"][1]["tables"] for p in t["players"]} | set(view["rounds"][1]["byes"])
    assert paused not in seated and late["id"] in seated
    assert view["rounds"][0]["tables"][0]["points"] == [0.0, 1.0], "the adjudication stands over the game's result"
    r = await api.post(f"/v1/tournaments/{tid}/resume", headers=auth(organiser), json={"player_id": paused})
    assert r.status_code == 200, r.text
    r = await api.post(f"/v1/tournaments/{tid}/remove", headers=auth(players[ids[3]]), json={"player_id": ids[4]})
    assert r.status_code == 403, r.text
    r = await api.post(f"/v1/tournaments/{tid}/remove", headers=auth(organiser), json={"player_id": ids[4]})
    assert r.status_code == 200, r.text
    for round_ in (2, 3):
        await play_round(api, view, players)
        view = await wait_round(api, tid, round_)
    assert view["status"] == "finished"
    assert view["standings"][-1]["player_id"] == ids[4] and view["standings"][-1]["removed"]
    for t in (t for r in view["rounds"] for t in r["tables"]):
        assert set(team) - set(t["players"]), "teammates never met"

    report = (await api.get(f"/v1/tournaments/{tid}/report")).json()
    assert verify_report(report) == []
    assert report["standings"] == view["standings"] and report["log"][-1]["type"] == "tournament.SeedRevealed"
    tampered = {**report, "standings": [dict(report["standings"][0], points=99.0), *report["standings"][1:]]}
    assert verify_report(tampered) == ["the report's standings is not what the log gives"]
    r = await api.get(f"/v1/tournaments/{tid}/report/csv", params={"part": "standings"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    lines = list(csv.reader(io.StringIO(r.text)))
    assert lines[0][:4] == ["place", "player_id", "name", "points"] and len(lines) == 1 + len(view["standings"])
    assert lines[-1][1] == ids[4] and lines[-1][-1] == "removed"
    r = await api.get(f"/v1/tournaments/{tid}/report/csv", params={"part": "pairings"})
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert {row["status"] for row in rows} >= {"played", "adjudicated", "annulled"}
    bad = await api.get(f"/v1/tournaments/{tid}/report/csv", params={"part": "games"})
    assert bad.status_code == 400
    # `stela verify FILE` takes the report as it takes a game's log, and refuses the tampered one
    for document, status in ((report, 0), (tampered, 1)):
        path = tmp_path / "report.json"
        path.write_text(json.dumps(document))
        assert main(["verify", str(path)]) == status
    # the list (a read model) counts the players registered less the one removed: 6 of 7

    async def listed() -> dict[str, Any] | None:
        items = (await api.get("/v1/tournaments", params={"status": "finished"})).json()["items"]
        return next((i for i in items if i["tournament_id"] == tid), None)

    assert (await found(listed))["players"] == 6


async def test_rating_conditions_use_the_platforms_ratings_and_the_organiser_may_register_anyone(api):  # noqa: F811
    organiser = await player(api, "Org")
    r = await api.post("/v1/tournaments", headers=auth(organiser), json={
        "kind": "tally", "seats": 2, "rounds": 1, "entry": {"min_rated_games": 1, "rating_max": 40}})
    assert r.status_code == 201, r.text
    tid = r.json()["tournament_id"]
    newcomer = await player(api, "New")
    # a self-declared rating does not get past the condition: the platform counts no rated game of tally
    r = await api.post(f"/v1/tournaments/{tid}/register", headers=auth(newcomer), json={"rating": 9000})
    assert r.status_code == 409 and r.json()["code"] == "tournament.too_few_rated_games", r.text
    r = await api.post(f"/v1/tournaments/{tid}/register", headers=auth(organiser),
                       json={"player_id": newcomer["id"], "name": "New"})
    assert r.status_code == 200, r.text
    r = await api.post("/v1/tournaments", headers=auth(organiser), json={
        "kind": "tally", "seats": 2, "rounds": 1, "entry": {"rating_min": 50, "rating_max": 40}})
    assert r.status_code == 422 and r.json()["code"] == "tournament.bad_options", r.text
    r = await api.post("/v1/tournaments", headers=auth(organiser), json={
        "kind": "tally", "seats": 2, "rounds": 1, "entry": {"rating_minimum": 50}})
    assert r.status_code == 400 and "rating_minimum" in r.json()["detail"], r.text


async def test_the_organiser_sets_a_rounds_pairings_and_the_report_verifies_with_them(api, tmp_path):  # noqa: F811
    organiser = await player(api, "Org")
    r = await api.post("/v1/tournaments", headers=auth(organiser), json={
        "kind": "tally", "options": {"target": 9}, "seats": 2, "rounds": 2})
    tid = r.json()["tournament_id"]
    players: dict[str, dict[str, str]] = {}
    for i in range(4):
        p = await player(api, f"P{i}")
        players[p["id"]] = p
        assert (await api.post(f"/v1/tournaments/{tid}/register", headers=auth(p), json={})).status_code == 200
    ids = list(players)
    chosen = [[ids[3], ids[0]], [ids[2], ids[1]]]
    r = await api.post(f"/v1/tournaments/{tid}/pairings", headers=auth(players[ids[0]]),
                       json={"round": 1, "tables": chosen})
    assert r.status_code == 403, r.text
    for body, code in (({"round": 1, "tables": [[ids[0], ids[0]], [ids[2], ids[1]]]}, "tournament.pairing_player_twice"),
                       ({"round": 1, "tables": [[ids[0], "ghost"], [ids[2], ids[1]]]}, "tournament.pairing_unknown_player"),
                       ({"round": 1, "tables": [ids]}, "tournament.pairing_table_size"),
                       ({"round": 1, "tables": chosen[:1]}, "tournament.pairing_incomplete")):
        r = await api.post(f"/v1/tournaments/{tid}/pairings", headers=auth(organiser), json=body)
        assert r.status_code == 409 and r.json()["code"] == code, r.text
    r = await api.post(f"/v1/tournaments/{tid}/pairings", headers=auth(organiser), json={"round": 1, "tables": chosen})
    assert r.status_code == 200, r.text
    view = (await api.post(f"/v1/tournaments/{tid}/start", headers=auth(organiser))).json()
    assert [t["players"] for t in view["rounds"][0]["tables"]] == chosen
    r = await api.post(f"/v1/tournaments/{tid}/pairings", headers=auth(organiser), json={"round": 1, "tables": chosen})
    assert r.status_code == 409 and r.json()["code"] == "tournament.round_already_paired", r.text
    for _ in range(2):
        await play_round(api, view, players)
        view = await wait_round(api, tid, view["round"])
    assert view["status"] == "finished"
    report = (await api.get(f"/v1/tournaments/{tid}/report")).json()
    assert verify_report(report) == [] and any(e["type"] == "tournament.PairingsSet" for e in report["log"])
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    assert main(["verify", str(path)]) == 0


async def test_points_per_place_set_at_creation_score_the_games_and_the_report_verifies(api):  # noqa: F811
    organiser = await player(api, "Org")
    r = await api.post("/v1/tournaments", headers=auth(organiser), json={
        "kind": "tally", "options": {"target": 9}, "seats": 2, "rounds": 1, "points_per_place": [3, 0]})
    assert r.status_code == 201 and r.json()["points_per_place"] == [3, 0] and r.json()["bye_points"] == 3, r.text
    tid = r.json()["tournament_id"]
    bad = await api.post("/v1/tournaments", headers=auth(organiser), json={
        "kind": "tally", "seats": 2, "rounds": 1, "points_per_place": [0, 3]})
    assert bad.status_code == 422 and bad.json()["code"] == "tournament.bad_options", bad.text
    players: dict[str, dict[str, str]] = {}
    for i in range(2):
        p = await player(api, f"P{i}")
        players[p["id"]] = p
        assert (await api.post(f"/v1/tournaments/{tid}/register", headers=auth(p), json={})).status_code == 200
    view = (await api.post(f"/v1/tournaments/{tid}/start", headers=auth(organiser))).json()
    await play_round(api, view, players)
    view = await wait_round(api, tid, view["round"])
    assert view["status"] == "finished"
    assert sorted(s["points"] for s in view["standings"]) in ([0, 3], [1.5, 1.5])
    report = (await api.get(f"/v1/tournaments/{tid}/report")).json()
    assert verify_report(report) == []
