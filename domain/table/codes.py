"""Every RuleViolation code the platform decider raises, with its meaning."""

from __future__ import annotations

TABLE_CODES: dict[str, str] = {
    "table.bad_seat_count": "the kind is not for that many players",
    "table.bad_options": "the options do not decode",
    "table.not_open": "the game is not open for players (or has already started)",
    "table.already_seated": "this player already has a seat",
    "table.full": "every seat is taken",
    "table.no_such_seat": "the seat does not exist",
    "table.seat_taken": "the seat is taken",
    "table.not_seated": "only a seated player (or the creator, to start) may do this",
    "table.seats_open": "every seat must be taken before the start",
    "table.not_active": "the game is not running",
    "table.over": "the game is already over",
    "table.bad_time_control": "give exactly one of per_move_seconds and total_seconds",
    "table.seat_left": "this seat has left the game (the kind's timeout rule plays for it now)",
    "table.not_due": "the seat is not past a deadline (no clock, not acting, or not yet)",
}
