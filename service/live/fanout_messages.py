"""The fan-out's messages on Redis: who publishes where, what a message holds, whom a process hears.

Each process publishes on its own channel (`FROM` + origin, 12 hex digits), one message per
publish round naming every game appended to since the last (`Round`, made by `message`), and
subscribes with `patterns(origin)`: `len(origin)` patterns, the i-th matching the origins that
first differ from its own at digit i, so each other process's message matches exactly one of them
and its own none. A process never reads back its own publishes, and a busy one sends one message
per round, not one per append (a PUBLISH per game was ~25 µs a command, and each came back to
its sender). Replicas of the release before this one published a message per game on
`PREFIX` + game id (a JSON list of events whose first names its sender, `sent_by`); those are
still heard, but they do not hear this release's channels: while both run side by side during a
rolling update, theirs learn of this release's appends only from PostgreSQL (their caches within
`Currency.max_age`, their streams at the next push that leaves a gap).
"""

from __future__ import annotations

import msgspec

from service.store.protocol import StoredEvent

PREFIX = "stela:game:"  # the previous release's channel per game (still heard)
FROM = "stela:from:"  # this release's channel per process: FROM + origin
ORIGIN_DIGITS = 12  # hex digits of a process's origin (48 bits: no two of a deployment's processes alike)


class Tagged(StoredEvent, frozen=True, kw_only=True):
    """An event of a previous-release message: its first event names the process that sent it."""

    origin: str = ""


class Round(msgspec.Struct, frozen=True):
    """One publish round of a process: each game appended to since the last round, with the JSON
    list of its new events (decoded only by a process that wants them)."""

    origin: str
    games: list[tuple[str, msgspec.Raw]]


_encode = msgspec.json.encode
decode_previous = msgspec.json.Decoder(list[Tagged])  # a previous-release message
decode_round = msgspec.json.Decoder(Round)
decode_events = msgspec.json.Decoder(list[StoredEvent])  # one game's events in a round


def message(origin: str, published: list[tuple[str, bytes]]) -> bytes:
    """The Redis payload of a publish round of process `origin`: `published` is each game's id and the
    JSON list of its new events."""
    return _encode(Round(origin, [(stream_id, msgspec.Raw(events)) for stream_id, events in published]))


def patterns(origin: str) -> list[str]:
    """The subscriptions that match the channel of every process except `origin`'s, each exactly once
    (origins all have `ORIGIN_DIGITS` hex digits): the i-th matches the origins whose first digit
    unlike `origin`'s is the i-th."""
    return [f"{FROM}{origin[:i]}[^{origin[i]}]*" for i in range(len(origin))]


def sent_by(origin: str) -> bytes:
    """How every previous-release message of process `origin` began."""
    return b'[{"origin":' + _encode(origin)
