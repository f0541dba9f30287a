"""The board picture endpoint: Tobago draws its island for the caller; other kinds say they have none."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from domain.tobago.components import CLASSIC_ISLAND
from tests.support.api import started_game


async def test_tobago_serves_its_island_as_svg_with_every_land_hex(client):
    game_id, players = await started_game(client, "tobago", 2)
    resp = await client.get(f"/v1/games/{game_id}/board.svg", headers=players[0]["headers"])
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(resp.text)
    assert root.tag.endswith("svg")
    drawn = {(int(el.get("data-q")), int(el.get("data-r")), el.get("data-terrain"))
             for el in root.iter() if el.get("data-hex") is not None}
    assert drawn == set(CLASSIC_ISLAND)


async def test_kinds_without_a_picture_answer_404(client):
    game_id, players = await started_game(client, "coatl", 2)
    resp = await client.get(f"/v1/games/{game_id}/board.svg")
    assert resp.status_code == 404 and resp.json()["code"] == "no_picture"
