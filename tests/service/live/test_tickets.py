"""Stream tickets: signed, scoped to one player and one stream, expiring, unforgeable."""

from __future__ import annotations

import asyncio

import pytest

from service.store.memory import MemoryStore
from service.store.postgres import PostgresStore
from service.live.tickets import InvalidTicket, Tickets, TicketSettings, ticket_key, ticket_settings

KEY = b"k" * 32


def test_a_ticket_names_its_player_for_its_own_stream_only():
    tickets = Tickets(KEY, ttl_seconds=60, clock=lambda: 1000.0)
    ticket, expires = tickets.issue("player-1", "game-1")
    assert expires == 1060
    assert tickets.check(ticket, "game-1") == "player-1"
    with pytest.raises(InvalidTicket):
        tickets.check(ticket, "game-2")
    with pytest.raises(InvalidTicket):
        tickets.check(ticket, None)


def test_a_ticket_lives_at_least_its_ttl_whenever_in_the_second_it_is_issued():
    now = [1000.9]
    tickets = Tickets(KEY, ttl_seconds=3, clock=lambda: now[0])
    ticket, expires = tickets.issue("player-1", "game-1")
    assert expires == 1004
    now[0] = 1003.9  # 3 s later (a whole-second expiry rounded down would have ended it at 1003)
    assert tickets.check(ticket, "game-1") == "player-1"
    now[0] = 1004.01
    with pytest.raises(InvalidTicket, match="expired"):
        tickets.check(ticket, "game-1")


def test_a_personal_ticket_opens_only_the_personal_stream():
    tickets = Tickets(KEY)
    ticket, _ = tickets.issue("player-1", None)
    assert tickets.check(ticket, None) == "player-1"
    with pytest.raises(InvalidTicket):
        tickets.check(ticket, "me-but-a-game")


def test_expired_forged_and_foreign_tickets_are_refused():
    now = [1000.0]
    tickets = Tickets(KEY, ttl_seconds=60, clock=lambda: now[0])
    ticket, _ = tickets.issue("player-1", "game-1")
    now[0] = 1061.0
    with pytest.raises(InvalidTicket, match="expired"):
        tickets.check(ticket, "game-1")
    now[0] = 1000.0
    payload, _, signature = ticket.partition(".")
    other, _ = Tickets(b"x" * 32, clock=lambda: now[0]).issue("player-2", "game-1")
    for bad in (other, f"{other.partition('.')[0]}.{signature}", payload, "", "a.b", f"{payload}.{signature}x",
                "!!!.???"):
        with pytest.raises(InvalidTicket):
            tickets.check(bad, "game-1")


def test_replicas_sharing_the_key_accept_each_others_tickets():
    ticket, _ = Tickets(KEY).issue("player-1", "game-1")
    assert Tickets(KEY).check(ticket, "game-1") == "player-1"


def test_a_short_key_is_refused():
    with pytest.raises(ValueError):
        Tickets(b"short")


def test_settings_come_from_the_environment_and_a_short_secret_is_refused():
    assert ticket_settings({}) == TicketSettings(None, 3600)
    assert ticket_settings({"STELA_TICKET_SECRET": "s" * 16, "STELA_TICKET_TTL_SECONDS": "90"}) == TicketSettings(
        "s" * 16, 90)
    with pytest.raises(ValueError):
        ticket_settings({"STELA_TICKET_SECRET": "short"})


async def test_replicas_on_one_database_share_a_key_generated_once(pg_dsn):
    first, second = await PostgresStore.connect(pg_dsn, 2), await PostgresStore.connect(pg_dsn, 2)
    try:
        keys = await asyncio.gather(ticket_key(first, None), ticket_key(second, None))
        assert keys[0] == keys[1] and len(keys[0]) == 32
        assert await ticket_key(first, "s" * 16) == await ticket_key(MemoryStore(), "s" * 16) != keys[0]
        assert await ticket_key(MemoryStore(), None) != await ticket_key(MemoryStore(), None)
    finally:
        await first.close()
        await second.close()
