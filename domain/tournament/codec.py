"""What every format of a competition shares on the wire: the bases of its commands and events, the
settings every creation records, and the codec of a tagged union of events.

A competition's events are frozen structs tagged `"<family>.<Name>"` (`tournament.RoundPaired`,
`arena.PlayersPaired`); the store keeps the tag apart from the data, so a stored event is read back by
`Codec.decode_event(type, data)` and written by `event_type` and `event_data`.
"""

from __future__ import annotations

from typing import Any, Optional

import msgspec


class Order(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """A competition command: imperative, tagged."""


class Fact(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """A competition event: a fact in the past tense, tagged."""


class Opened(Fact):
    """What the creation of a competition of any format records: who runs it, the games it plays (kind,
    options, time control, seats a table) and the commitment to its secret seed."""

    organiser: str
    kind: str
    name: str
    options: dict[str, Any]
    time_control: dict[str, Any]
    seats: int
    seed_commitment: str
    seed: Optional[str] = None  # secret until the end: redacted from every reader while the competition runs


def event_type(event: Fact) -> str:
    """The stored type tag of `event` ("tournament.RoundPaired")."""
    return type(event).__struct_config__.tag  # type: ignore[return-value]


def event_data(event: Fact) -> dict[str, Any]:
    """`event` as a JSON object without its "type" (the store keeps the type apart)."""
    data = msgspec.to_builtins(event)
    data.pop("type", None)
    return data


class Codec:
    """Reads stored events of the tagged union `events` back (the decoder is built once)."""

    def __init__(self, events: Any) -> None:
        self._events = msgspec.json.Decoder(events)

    def decode_event(self, type_: str, data: dict[str, Any]) -> Any:
        """The event stored as (`type_`, `data`); raises msgspec.ValidationError."""
        return self._events.decode(msgspec.json.encode({**data, "type": type_}))
