"""What a registration and a withdrawal answer over HTTP (memory store): the entry of the player the command
was for (`domain.tournament.EntrantView`), never the whole tournament, so an answer does not grow with
the field (the view it replaced carried every entrant's standing: 10,000 entries cost quadratic time and
about 10 GB of JSON)."""

from __future__ import annotations

from typing import Any

from testkit.api import player
from tests.support.answers import assert_entries_do_not_grow

TALLY = {"kind": "tally", "options": {"target": 9}, "seats": 2, "rounds": 1}


async def tournament(api: Any, organiser: dict[str, Any]) -> str:
    r = await api.post("/v1/tournaments", headers=organiser["headers"], json=TALLY)
    assert r.status_code == 201, r.text
    return r.json()["tournament_id"]


async def version(api: Any, tid: str) -> int:
    return (await api.get(f"/v1/tournaments/{tid}/events")).json()["version"]


async def post(api: Any, tid: str, what: str, who: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    r = await api.post(f"/v1/tournaments/{tid}/{what}", headers=who["headers"], json=body)
    assert r.status_code == 200, r.text
    return r.json()


async def test_a_registration_answers_with_the_players_entry_and_the_tournaments_version(client):
    organiser, ann = await player(client, "Org"), await player(client, "Ann")
    tid = await tournament(client, organiser)
    entry = await post(client, tid, "register", ann, {"rating": 1640})
    assert entry == {"tournament_id": tid, "player_id": ann["id"], "name": "Ann", "rating": 1640,
                     "registered": True, "status": "registration", "round": 0, "players": 1,
                     "version": await version(client, tid)}


async def test_the_organiser_registering_someone_answers_with_that_players_entry(client):
    organiser, ann = await player(client, "Org"), await player(client, "Ann")
    tid = await tournament(client, organiser)
    entry = await post(client, tid, "register", organiser, {"player_id": ann["id"], "name": "Ann A.", "rating": 1600})
    assert (entry["player_id"], entry["name"], entry["rating"], entry["registered"]) == (ann["id"], "Ann A.", 1600, True)
    view = (await client.get(f"/v1/tournaments/{tid}")).json()
    assert [s["player_id"] for s in view["standings"]] == [ann["id"]], "the organiser did not enter"


async def test_a_withdrawal_before_the_start_still_names_the_player_whose_entry_it_removed(client):
    organiser, ann, ben = await player(client, "Org"), await player(client, "Ann"), await player(client, "Ben")
    tid = await tournament(client, organiser)
    await post(client, tid, "register", ann, {"rating": 1700})
    await post(client, tid, "register", ben, {})
    entry = await post(client, tid, "withdraw", ann, {})
    assert entry == {"tournament_id": tid, "player_id": ann["id"], "name": "Ann", "rating": 1700,
                     "registered": False, "status": "registration", "round": 0, "players": 1,
                     "version": await version(client, tid)}
    by_organiser = await post(client, tid, "withdraw", organiser, {"player_id": ben["id"]})
    assert (by_organiser["player_id"], by_organiser["name"], by_organiser["registered"]) == (ben["id"], "Ben", False)
    assert by_organiser["players"] == 0


async def test_a_withdrawal_after_the_start_answers_with_the_running_round(client):
    organiser = await player(client, "Org")
    tid = await tournament(client, organiser)
    entrants = [await player(client, name) for name in ("Ann", "Ben", "Cy")]
    for p in entrants:
        await post(client, tid, "register", p, {"name": f"{p['name']} X", "rating": 1500})
    assert (await client.post(f"/v1/tournaments/{tid}/start", headers=organiser["headers"])).status_code == 200
    entry = await post(client, tid, "withdraw", entrants[2], {})
    assert entry == {"tournament_id": tid, "player_id": entrants[2]["id"], "name": "Cy X", "rating": 1500,
                     "registered": False, "status": "running", "round": 1, "players": 3,
                     "version": await version(client, tid)}
    r = await client.post(f"/v1/tournaments/{tid}/withdraw", headers=entrants[2]["headers"], json={})
    assert r.status_code == 409 and r.json()["code"] == "tournament.already_withdrawn", r.text


async def test_an_entry_does_not_grow_with_the_field(client):
    """The third answer names no one else and is the first's size but for what is the third's own
    (`assert_entries_do_not_grow`): an answer carrying the field (the view) fails both."""
    organiser = await player(client, "Org")
    tid = await tournament(client, organiser)
    entrants = [await player(client, f"P{i}") for i in range(3)]
    await assert_entries_do_not_grow(client, f"/v1/tournaments/{tid}/register", entrants)
