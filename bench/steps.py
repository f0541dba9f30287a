"""Real games for `bench.http`: what a client does to play Tikal, Cóatl, Tobago and Gold Mine.

A game's commands depend on its secret seed, so a load generator can only post real commands
blindly if it knows the seed: `bench.server` started with `STELA_BENCH_SEED` gives every game that
seed (a benchmark server only), and `script` plays the same game in process through the
catalogue beforehand (the bots' weighted random choice), so each step is a command the rules
accept. Two ways to play a step are measured:

- `post`: POST the scripted command for its seat, nothing else (`real_post`);
- `step`: what a client that knows nothing does: the seat to act reads `GET /legal` (the
  scripted command must be among them), then posts the command with `include=view,legal`
  (`full_step`). Its latency is the two requests together.

The anchors (bench.anchor) answer the same requests, `GET /legal` from memory as Stela answers from its
cache: the litestar and framework-free anchors insert one row a POST; the game anchor starts each game as
`script` does (its kind named in its id) and decides, folds and appends every command by the rules.
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

import msgspec

from domain.catalog import GAMES
from domain.kernel import Rng
from domain.simulate import pick, start_table
from domain.table import Table

SEED = hashlib.sha256(b"stela bench").digest()
MIX: list[tuple[str, dict[str, Any], int]] = [("tikal", {}, 2), ("coatl", {}, 2), ("tobago", {}, 2),
                                              ("goldmine", {}, 2)]
MAX_COMMANDS = 3000
_encode = msgspec.json.encode


class Step(msgspec.Struct, frozen=True):
    seat: int
    body: bytes  # {"command": ...} as JSON
    wire: dict[str, Any]  # the command as `legal` lists it


@cache
def script(kind: str, seats: int, options_json: bytes = b"{}") -> tuple[Step, ...]:
    """The commands of the game a `STELA_BENCH_SEED` server plays for (kind, seats, options)."""
    options = msgspec.json.decode(options_json)
    table = Table(GAMES[kind])
    state, _ = start_table(table, options, seats, SEED)
    bot = Rng(SEED + b"/bench", 0)
    weigh = table.game.bot_weights
    steps: list[Step] = []
    while state.status == "active" and len(steps) < MAX_COMMANDS:
        seat = min(table.to_act(state))
        legal = table.legal(state, seat)
        command = pick(bot, legal, weigh(state.game, seat, legal) if weigh else None)
        wire = msgspec.json.decode(_encode(command))
        steps.append(Step(seat, _encode({"command": wire}), wire))
        state = table.fold(table.play(state, seat, table.decode_command(wire)), state)
    return tuple(steps)


def scripts() -> list[tuple[str, dict[str, Any], int, tuple[Step, ...]]]:
    """Every game of the mix with its script."""
    return [(kind, options, seats, script(kind, seats, _encode(options))) for kind, options, seats in MIX]


def fixed_seed(seed_hex: str) -> None:
    """Make every new game of this process take `seed_hex` as its seed (bench.server only)."""
    import service.commands.pipeline as pipeline

    seed = bytes.fromhex(seed_hex)

    class Fixed:
        @staticmethod
        def token_bytes(n: int) -> bytes:
            return seed[:n]

    pipeline.secrets = Fixed  # type: ignore[attr-defined, assignment]
