"""Stream tickets: signed, scoped to one player and one stream, expiring, unforgeable."""

from __future__ import annotations

import pytest

from service.tickets import InvalidTicket, Tickets

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
