"""The board picture endpoint: Tobago draws its island for the caller; other kinds say they have none."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from stela_client import Client, HttpxTransport, NotFound, path_of

from domain.tobago.components import CLASSIC_ISLAND
from tests.e2e.sdk_support import seated


def through_the_sdk(client) -> str:
    """The in-process app's base URL; the SDK reaches it through `client`'s httpx transport."""
    return str(client.base_url)


async def test_tobago_serves_its_island_as_svg_with_every_land_hex(client):
    url = through_the_sdk(client)
    game_id, players = await seated(url, "tobago", 2, transport=HttpxTransport(client))
    resp = await players[0].send("GET", path_of("v1", "games", game_id, "board.svg"))
    assert resp.status == 200 and resp.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(resp.body)
    assert root.tag.endswith("svg")
    drawn = {(int(el.get("data-q")), int(el.get("data-r")), el.get("data-terrain"))
             for el in root.iter() if el.get("data-hex") is not None}
    assert drawn == set(CLASSIC_ISLAND)


async def test_kinds_without_a_picture_answer_404(client):
    url = through_the_sdk(client)
    game_id, _ = await seated(url, "coatl", 2, transport=HttpxTransport(client))
    with pytest.raises(NotFound) as refused:
        await Client(url, transport=HttpxTransport(client)).send("GET", path_of("v1", "games", game_id, "board.svg"))
    assert refused.value.code == "no_picture"
