"""Which events of a stream become leaves of the transparency log, and the bytes of each leaf.

Three moments of every game and competition are logged (`role`): its creation, its end, and the reveal
of its seed. A leaf is the canonical JSON (keys sorted, no spaces) of a small record naming the stream,
the event's version, type and chain hash (which commits to everything before it in the stream), and:

- `created`: the `kind`, the number of `seats`, the `options_digest` (SHA-256 of the canonical JSON of
  the creation's settings: its data without the secret `seed`) and the `seed_commitment`;
- `ended`: the `outcome_digest`, SHA-256 of the canonical JSON of [the event's chain hash, its data]
  (salted by the chain hash, so that a small set of possible outcomes cannot be guessed from it while
  the game's log is still sealed);
- `seed`: nothing more (the seed itself stays out of the log: the chain hash pins it).

Anyone holding a stream's export recomputes its leaves with `leaf` and asks the log to prove them.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

# event type -> leaf role. Competitions are found by their event type names here and only here.
ROLES = {
    "table.GameCreated": "created", "tournament.TournamentCreated": "created", "arena.ArenaCreated": "created",
    "table.GameEnded": "ended", "table.GameAborted": "ended", "tournament.TournamentEnded": "ended",
    "arena.ArenaEnded": "ended",
    "table.SeedRevealed": "seed", "tournament.SeedRevealed": "seed", "arena.SeedRevealed": "seed",
}


def role(event_type: str) -> str | None:
    """The leaf an event of `event_type` writes: "created", "ended", "seed", or None (no leaf)."""
    return ROLES.get(event_type)


def canonical(value: Any) -> bytes:
    return msgspec.json.encode(value, order="sorted")


def digest(value: Any) -> str:
    return hashlib.sha256(canonical(value)).hexdigest()


def leaf(stream_id: str, version: int, event_type: str, data: dict[str, Any], chain_hash: str) -> bytes | None:
    """The leaf bytes an event writes into the log, or None when it writes none."""
    which = role(event_type)
    if which is None:
        return None
    record: dict[str, Any] = {"leaf": which, "stream_id": stream_id, "version": version, "type": event_type,
                              "hash": chain_hash}
    if which == "created":
        record.update(kind=data.get("kind", event_type.split(".")[0]), seats=data.get("seats"),
                      options_digest=digest({k: v for k, v in data.items() if k != "seed"}),
                      seed_commitment=data.get("seed_commitment"))
    elif which == "ended":
        record["outcome_digest"] = digest([chain_hash, data])
    return canonical(record)
