"""Gold Mine setup: hands, shuffle, first player, the scout map's first tile.

Setup checks the options (`domain.goldmine.options`) against the seat count, deals
the five_tiles hands, shuffles the 99 face-down tiles into 20 scout tiles and the
stack, rolls for the first player and turns up the first scout tile.
"""

from __future__ import annotations

from domain.goldmine.components import (ALL_TILES, COINS_TO_WIN, ENTRANCE, SCOUT_TILES, TEAM_COINS_TO_WIN,
                                        design)
from domain.goldmine.draws import draw_scout
from domain.goldmine.events import FirstPlayerChosen, GameSetUp, GoldmineEvent, HandsDealt, TilesShuffled
from domain.goldmine.evolve import evolve
from domain.goldmine.options import GoldmineOptions, options_refusal
from domain.kernel import Rng, fold, require


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
