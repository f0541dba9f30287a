"""Kinds publish their view schema and their whole printed catalogue."""

from __future__ import annotations

import pytest

from domain.catalog import GAMES


@pytest.mark.parametrize("kind", sorted(GAMES))
async def test_a_kind_publishes_its_view_schema_and_its_components(client, kind):
    resp = await client.get(f"/v1/kinds/{kind}")
    assert resp.status_code == 200
    body = resp.json()
    assert body["view_schema"] and "table.Resign" in str(body["command_schema"])
    assert "table.GameCreated" in str(body["event_schema"]) and "table.not_active" in body["codes"]
    components = await client.get(f"/v1/kinds/{kind}/components")
    assert components.status_code == 200 and components.json()
    assert "max-age" in components.headers["cache-control"]


async def test_an_unknown_kind_has_no_components(client):
    resp = await client.get("/v1/kinds/chess/components")
    assert resp.status_code == 404 and resp.json()["code"] == "unknown_kind"
