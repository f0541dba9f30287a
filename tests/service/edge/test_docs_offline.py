"""/schema works with no internet: the page loads only this server's assets."""

from __future__ import annotations

import re


async def test_the_schema_page_loads_swagger_ui_from_this_server_only(client):
    page = await client.get("/schema")
    assert page.status_code == 200
    urls = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert urls and all(u.startswith("/schema/") for u in urls), urls
    for url in urls:
        asset = await client.get(url)
        assert asset.status_code == 200, url
    spec = await client.get("/schema/openapi.json")
    assert spec.status_code == 200 and "View" in spec.json()["components"]["schemas"]
