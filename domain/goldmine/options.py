"""Gold Mine's options: the variants, their check against the seat count, and their upgrade.

`GoldmineOptions` is embedded in `GameSetUp` and in the state; `options_refusal` says why
options do not fit a seat count; `upgrade_options` rewrites options an earlier version stored.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from domain.kernel import RuleViolation


class GoldmineOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Variants of Gold Mine; {} is the basic game."""

    mud: Annotated[bool, msgspec.Meta(
        description="Mud puddles: a pirate entering a path with mud stops there (also when moved by bats)")] = False
    five_tiles: Annotated[bool, msgspec.Meta(
        description="Five tiles: each player holds 1 cavern, 2 secret-passage and 2 mud tiles face up and may "
                    "explore with one instead of drawing (2-4 players, needs mud)")] = False
    alliances: Annotated[bool, msgspec.Meta(
        description="Alliances: seats i and i+n/2 form a team that wins together with 12 (4 players) or "
                    "8 (6 players) coins (4 or 6 players)")] = False
    max_rounds: Annotated[int, msgspec.Meta(
        ge=0, description="Stall guard: after this many rounds (every seat one turn) the game ends by coins, "
                          "then fewest steps to the entrance (0 = no guard)")] = 200


def upgrade_options(options: dict[str, Any], seats: int) -> dict[str, Any]:
    """Options stored before the stall guard counted rounds: `turn_cap` turns becomes `max_rounds`, the
    rounds that hold at least as many turns (0 stays "no guard")."""
    if "turn_cap" in options:
        cap = options.pop("turn_cap")
        options.setdefault("max_rounds", -(-cap // max(seats, 1)) if isinstance(cap, int) and cap > 0 else 0)
    return options


def options_refusal(options: GoldmineOptions, seats: int) -> RuleViolation | None:
    """Why the options do not fit the seat count (None: they do)."""
    def bad(message: str) -> RuleViolation:
        return RuleViolation("goldmine.bad_options", message)
    if options.max_rounds < 0:
        return bad("max_rounds must be 0 (no guard) or more")
    if options.five_tiles and not options.mud:
        return bad("five_tiles needs the mud variant")
    if options.five_tiles and not 2 <= seats <= 4:
        return bad("five_tiles is for 2-4 players")
    if options.alliances and seats not in (4, 6):
        return bad("alliances are for 4 or 6 players")
    return None
