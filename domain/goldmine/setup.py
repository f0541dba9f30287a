"""Gold Mine options and setup: options check, hands, shuffle, first player, the scout map's first tile.

Setup validates the options for the seat count, deals the five_tiles hands,
shuffles the 99 face-down tiles into 20 scout tiles and the stack, rolls
for the first player and turns up the first scout tile. The Options struct
comes first because the events and the state embed it.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from domain.kernel import Rng, RuleViolation, fold, require


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


# The events and the state embed GoldmineOptions, so they are imported after it is defined.
from domain.goldmine.components import (ALL_TILES, COINS_TO_WIN, ENTRANCE, SCOUT_TILES,  # noqa: E402
                                        TEAM_COINS_TO_WIN, design)
from domain.goldmine.draws import draw_scout  # noqa: E402
from domain.goldmine.events import (FirstPlayerChosen, GameSetUp, GoldmineEvent, HandsDealt,  # noqa: E402
                                    TilesShuffled)
from domain.goldmine.evolve import evolve  # noqa: E402


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


def setup(options: GoldmineOptions, seats: int, rng: Rng) -> list[GoldmineEvent]:
    """The opening events up to the first scout tile turned up."""
    require(options_refusal(options, seats))
    target = TEAM_COINS_TO_WIN[seats] if options.alliances else COINS_TO_WIN[seats]
    events: list[GoldmineEvent] = [GameSetUp(options=options, seats=seats, target=target)]
    dealt: list[str] = []
    if options.five_tiles:
        hands = _deal_hands(seats, rng)
        events.append(HandsDealt(hands=hands))
        dealt = [t for hand in hands for t in hand]
    rest = rng.shuffle([t for t in ALL_TILES if t != ENTRANCE and t not in dealt])
    events.append(TilesShuffled(stack=rest[SCOUT_TILES:], scout=rest[:SCOUT_TILES]))
    events.append(_first_player(seats, rng))
    return events + draw_scout(fold(evolve, None, events), rng)


def _deal_hands(seats: int, rng: Rng) -> list[list[str]]:
    """1 cavern, 2 secret-passage tiles and 2 mud tiles per seat, face up."""
    kinds = [
        [t for t in ALL_TILES if design(t).kind == "cavern"],
        [t for t in ALL_TILES if any(p.secret for p in design(t).paths)],
        [t for t in ALL_TILES if any(p.mud for p in design(t).paths)],
    ]
    piles = [rng.shuffle(pile) for pile in kinds]
    return [[piles[0][seat], *piles[1][2 * seat:2 * seat + 2], *piles[2][2 * seat:2 * seat + 2]]
            for seat in range(seats)]


def _first_player(seats: int, rng: Rng) -> FirstPlayerChosen:
    """Everyone rolls; the tied highest roll again (0 = not rolling this round)."""
    rolling = list(range(seats))
    rounds: list[list[int]] = []
    while True:
        roll = [rng.die() if s in rolling else 0 for s in range(seats)]
        rounds.append(roll)
        best = max(roll)
        rolling = [s for s in range(seats) if roll[s] == best]
        if len(rolling) == 1:
            return FirstPlayerChosen(rolls=rounds, seat=rolling[0])
