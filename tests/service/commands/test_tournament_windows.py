"""Playing windows over HTTP (`PUT /v1/tournaments/{id}/windows`): a player of a slow tournament states when
they play, the view shows it, the games paired then carry the windows in their time control, the seat's
per-move deadline counts only time inside them, and the published report verifies with the windows in it."""

from __future__ import annotations

from domain.windows import Window, deadline
from service.commands.tournaments import verify_report
from service.commands.verify import parse_ndjson, verify_log
from tests.service.commands.test_tournament_tools import wait_round
from tests.service.commands.test_tournaments import api, play_round, player  # noqa: F401 - `api` is a fixture
from testkit.api import auth

EVENINGS = [{"start": day * 1440 + 18 * 60, "end": day * 1440 + 24 * 60} for day in range(7)]
MORNINGS = [{"start": day * 1440 + 6 * 60, "end": day * 1440 + 12 * 60} for day in range(7)]


async def slow_tournament(api, per_move_seconds: int, entrants: int) -> tuple[dict, str, dict]:  # noqa: F811
    """A Swiss of one round with this per-move time, `entrants` players registered: (organiser, id, players)."""
    organiser = await player(api, "Org")
    body = {"kind": "tally", "options": {"target": 9}, "seats": 2, "rounds": 1,
            "time_control": {"per_move_seconds": per_move_seconds}}
    tid = (await api.post("/v1/tournaments", headers=auth(organiser), json=body)).json()["tournament_id"]
    players = {p["id"]: p for p in [await player(api, f"P{i}") for i in range(entrants)]}
    for p in players.values():
        assert (await api.post(f"/v1/tournaments/{tid}/register", headers=auth(p), json={})).status_code == 200
    return organiser, tid, players


async def test_a_player_sets_windows_and_their_games_deadline_counts_only_time_inside_them(api, games):  # noqa: F811
    organiser, tid, players = await slow_tournament(api, 86400, 2)
    night_owl, early_bird = list(players)
    url = f"/v1/tournaments/{tid}/windows"
    r = await api.put(url, json={"windows": EVENINGS})
    assert r.status_code == 401, r.text
    for windows, code in (([{"start": 0, "end": 60}], "tournament.windows_too_short"),
                          ([{"start": 0, "end": 2000}, {"start": 1000, "end": 3000}], "tournament.windows_overlap")):
        r = await api.put(url, headers=auth(players[night_owl]), json={"windows": windows})
        assert r.status_code == 409 and r.json()["code"] == code, r.text
    r = await api.put(url, headers=auth(players[night_owl]), json={"windows": EVENINGS})
    assert r.status_code == 200 and r.json()["windows"] == {night_owl: EVENINGS}, r.text
    r = await api.put(url, headers=auth(players[early_bird]), json={"windows": MORNINGS})
    assert r.json()["windows"] == {night_owl: EVENINGS, early_bird: MORNINGS}, r.text

    view = (await api.post(f"/v1/tournaments/{tid}/start", headers=auth(organiser))).json()
    table = view["rounds"][0]["tables"][0]
    game = (await api.get(f"/v1/games/{table['game_id']}")).json()
    seats = [MORNINGS if pid == early_bird else EVENINGS for pid in table["players"]]
    assert game["time_control"]["windows"] == seats
    acting = game["to_act"][0]
    events = (await api.get(f"/v1/games/{table['game_id']}/events")).json()["events"]
    clock = next(e for e in reversed(events) if e["type"] == "table.ClockSet")["data"]
    since = clock["since_ms"][acting]
    windows = [Window(**w) for w in seats[acting]]
    # a day of per-move time inside six hours a day: at least three days later, never a plain day
    assert game["clock"]["deadlines_ms"][acting] == deadline(windows, since, 86400 * 1000) >= since + 3 * 86400 * 1000

    await play_round(api, view, players)
    view = await wait_round(api, tid, 1)
    assert view["status"] == "finished"
    report = (await api.get(f"/v1/tournaments/{tid}/report")).json()
    assert verify_report(report) == [] and any(e["type"] == "tournament.WindowsSet" for e in report["log"])
    log = (await api.get(f"/v1/games/{table['game_id']}/export")).content  # the game's audit re-derives its deadlines
    assert verify_log(parse_ndjson(log), games).ok


async def test_windows_are_refused_in_a_tournament_that_is_not_slow(api):  # noqa: F811
    _, tid, players = await slow_tournament(api, 12 * 3600 - 1, 1)
    p = next(iter(players.values()))
    r = await api.put(f"/v1/tournaments/{tid}/windows", headers=auth(p), json={"windows": EVENINGS})
    assert r.status_code == 409 and r.json()["code"] == "tournament.windows_not_slow", r.text
