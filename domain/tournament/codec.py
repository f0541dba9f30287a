"""What every format of a competition shares on the wire: the bases of its commands and events, the
settings every creation records, and the codec of a tagged union of events.

A competition's events are frozen structs tagged `"<family>.<Name>"` (`tournament.RoundPaired`,
`arena.PlayersPaired`); the store keeps the tag apart from the data, so a stored event is read back by
`Codec.decode_event(type, data)` and written by `event_type` and `event_data`. A tag that was renamed
(a fact once declared by one format and now shared by all, `arena.PlayerLeft` read as
`tournament.PlayerWithdrew`) is read through the codec's `renamed` map: an upcast on decode only, the
stored bytes (and so the hash chain over them) never change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import msgspec


class Order(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """A competition command: imperative, tagged."""


class Setup(Order):
    """What creating a competition of any format asks for: the kind of game, its `options` and
    `time_control` (opaque here, passed on to every game) and the players a table `seats`."""

    kind: str
    name: str = ""
    options: dict[str, Any] = {}
    time_control: dict[str, Any] = {}
    seats: int = 2


class Fact(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """A competition event: a fact in the past tense, tagged."""


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """What a competition of any format is, as its creation records it and its view shows it: who runs
    it, the games it plays (kind, options, time control, seats a table) and the commitment to its
    secret seed (the seed itself only once revealed)."""

    organiser: str
    kind: str
    name: str
    options: dict[str, Any]
    time_control: dict[str, Any]
    seats: int
    seed_commitment: str
    seed: Optional[str] = None  # secret until the end: redacted from every reader while the competition runs


class Opened(Settings, tag_field="type"):
    """The creation of a competition: its `Settings`, then its format's own (a fact, tagged)."""


def without_seeds(event: Fact) -> Fact:
    """`event` with every field named `seed` emptied, its own and its items' (a table's, a game's): a
    competition keeps each of its secrets in such a field until it ends."""
    changes: dict[str, Any] = {}
    for name in event.__struct_fields__:
        value = getattr(event, name)
        if name == "seed" and value is not None:
            changes[name] = None
        elif isinstance(value, list) and any(isinstance(v, msgspec.Struct) and getattr(v, "seed", None) for v in value):
            changes[name] = [msgspec.structs.replace(v, seed=None) for v in value]
    return msgspec.structs.replace(event, **changes) if changes else event


def event_type(event: Fact) -> str:
    """The stored type tag of `event` ("tournament.RoundPaired")."""
    return type(event).__struct_config__.tag  # type: ignore[return-value]


def event_data(event: Fact) -> dict[str, Any]:
    """`event` as a JSON object without its "type" (the store keeps the type apart)."""
    data = msgspec.to_builtins(event)
    data.pop("type", None)
    return data


class Codec:
    """Reads stored events of the tagged union `events` back (the decoder is built once); `renamed` maps a tag
    that older logs hold to the tag of the one class that now declares that fact (same fields)."""

    def __init__(self, events: Any, renamed: Mapping[str, str] | None = None) -> None:
        self._events = msgspec.json.Decoder(events)
        self._renamed = dict(renamed or {})

    def decode_event(self, type_: str, data: dict[str, Any]) -> Any:
        """The event stored as (`type_`, `data`), under its current tag; raises msgspec.ValidationError."""
        return self._events.decode(msgspec.json.encode({**data, "type": self._renamed.get(type_, type_)}))
