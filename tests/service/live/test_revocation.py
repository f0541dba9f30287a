"""Tickets and streams die with their token: rotating or revoking it refuses its tickets at once and ends
the streams opened with it (or with its tickets) within a second, on every replica."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from service.edge.app import create_app
from tests.service.live.test_sse import collect, wait_for
from tests.service.live.test_stream_tickets import ticket_for
from testkit.api import started_game
from testkit.live import serving



@pytest.fixture
def two_replicas(settings, games):
    """Two servers on one database, no Redis: what one revokes, the other learns from PostgreSQL."""
    with serving(create_app(settings, games=games)) as one, serving(create_app(settings, games=games)) as two:
        yield one, two


async def personal_ticket(client: httpx.AsyncClient, who: dict) -> str:
    resp = await client.post("/v1/players/me/stream-tickets", headers=who["headers"])
    assert resp.status_code == 201, resp.text
    return resp.json()["ticket"]


@pytest.mark.parametrize("how", ["rotate", "revoke"])
async def test_streams_and_tickets_of_a_revoked_token_end_on_every_replica(two_replicas, how):
    one, two = two_replicas
    async with httpx.AsyncClient(base_url=one) as a, httpx.AsyncClient(base_url=two) as b:
        game_id, players = await started_game(a, "tally", 2, {"target": 100})
        ann, bo = players
        ticket = await ticket_for(a, game_id, ann)
        personal = await personal_ticket(a, ann)
        spare = await ticket_for(a, game_id, ann)  # never used before the revocation
        streams = {name: [] for name in ("ticket", "personal", "bearer", "other player")}
        tasks = {
            "ticket": asyncio.create_task(collect(b, f"/v1/games/{game_id}/stream?ticket={ticket}", {},
                                                  streams["ticket"])),
            "personal": asyncio.create_task(collect(b, f"/v1/players/me/stream?ticket={personal}", {},
                                                    streams["personal"])),
            "bearer": asyncio.create_task(collect(b, f"/v1/games/{game_id}/stream", ann["headers"],
                                                  streams["bearer"])),
            "other player": asyncio.create_task(collect(b, f"/v1/games/{game_id}/stream", bo["headers"],
                                                        streams["other player"]))}
        await wait_for(lambda: all(streams[n] for n in streams), timeout=60)
        began = time.monotonic()
        if how == "rotate":
            assert (await a.post("/v1/players/me/token", headers=ann["headers"])).status_code == 201
        else:
            assert (await a.delete("/v1/players/me/token", headers=ann["headers"])).status_code == 204
        refused = await b.get(f"/v1/games/{game_id}/stream?ticket={spare}")  # at once, on the other replica
        assert refused.status_code == 401 and refused.json()["code"] == "unauthorized", refused.text
        await wait_for(lambda: all(tasks[n].done() for n in ("ticket", "personal", "bearer")), timeout=60)
        ended = time.monotonic() - began
        for name in ("ticket", "personal", "bearer"):
            tasks[name].result()  # ended cleanly, not failed
        assert not tasks["other player"].done()  # another player's stream goes on
        tasks["other player"].cancel()
        print(f"{how}: the other replica's streams ended {ended:.2f} s after the call")


async def test_a_ticket_is_good_only_while_the_token_it_was_issued_with_is_the_players():
    from service.live.tickets import InvalidTicket, TicketOffice
    from service.store.memory import MemoryStore
    from service.store.protocol import token_hash

    store = MemoryStore()
    await store.create_player("p1", "Ann", token_hash("first"))
    office = TicketOffice(store)
    tickets = await office.tickets()
    ticket, _ = tickets.issue("p1", "g1", token_hash("first"))
    assert await office.holder(ticket, "g1") == ("p1", token_hash("first"))
    legacy, _ = tickets.issue("p1", "g1")  # names no token (as tickets did before)
    with pytest.raises(InvalidTicket):
        await office.holder(legacy, "g1")
    await store.set_token("p1", token_hash("second"))  # rotated
    with pytest.raises(InvalidTicket):
        await office.holder(ticket, "g1")
    await store.set_token("p1", None)  # revoked
    with pytest.raises(InvalidTicket):
        await office.holder(ticket, "g1")
