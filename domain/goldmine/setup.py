"""Gold Mine setup and tile drawing: options check, hands, shuffle, first player, draws.

Setup validates the options for the seat count, deals the five_tiles hands,
shuffles the 99 face-down tiles into 20 scout tiles and the stack, rolls
for the first player and turns up the first scout tile. Draw helpers return
tiles that fit nowhere to the stack at a random depth (a secret, written in
`TileReturned`) and draw again, as the spec orders.
"""

from __future__ import annotations

from domain.goldmine.board import fits_anywhere
from domain.goldmine.components import (ALL_TILES, COINS_TO_WIN, ENTRANCE, SCOUT_TILES, TEAM_COINS_TO_WIN,
                                        design)
from domain.goldmine.evolve import evolve
from domain.goldmine.events import (FirstPlayerChosen, GameSetUp, GoldmineEvent, HandsDealt, ScoutMapLaid,
                                    TileDrawn, TileReturned, TilesShuffled)
from domain.goldmine.state import GoldmineOptions, GoldmineState, cells
from domain.kernel import Rng, RuleViolation


def check_options(options: GoldmineOptions, seats: int) -> None:
    """RuleViolation goldmine.bad_options when a variant does not fit the seat count."""
    if options.turn_cap < 0:
        raise RuleViolation("goldmine.bad_options", "turn_cap must be 0 (no cap) or more")
    if options.five_tiles and not options.mud:
        raise RuleViolation("goldmine.bad_options", "five_tiles needs the mud variant")
    if options.five_tiles and not 2 <= seats <= 4:
        raise RuleViolation("goldmine.bad_options", "five_tiles is for 2-4 players")
    if options.alliances and seats not in (4, 6):
        raise RuleViolation("goldmine.bad_options", "alliances are for 4 or 6 players")


def setup(options: GoldmineOptions, seats: int, rng: Rng) -> list[GoldmineEvent]:
    """The opening events up to the first scout tile turned up."""
    check_options(options, seats)
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
    state = fold(None, events)
    return events + draw_scout(state, rng)


def _deal_hands(seats: int, rng: Rng) -> list[list[str]]:
    """1 cavern, 2 secret-passage tiles and 2 mud tiles per seat, face up."""
    kinds = [
        [t for t in ALL_TILES if design(t).kind == "cavern"],
        [t for t in ALL_TILES if any(p.secret for p in design(t).paths)],
        [t for t in ALL_TILES if any(p.mud for p in design(t).paths)],
    ]
    piles = [rng.shuffle(pile) for pile in kinds]
    hands = []
    for seat in range(seats):
        hand = [piles[0][seat], *piles[1][2 * seat:2 * seat + 2], *piles[2][2 * seat:2 * seat + 2]]
        hands.append(hand)
    return hands


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


def fold(state: GoldmineState | None, events: list[GoldmineEvent]) -> GoldmineState:
    """The state after `events` (decide uses it to look ahead within one decision)."""
    for event in events:
        state = evolve(state, event)
    assert state is not None
    return state


def _return_depth(state: GoldmineState, rng: Rng) -> int:
    """A random depth in the stack; never the top when other tiles remain, so a redraw differs."""
    size = len(state.hidden.stack)
    return rng.between(1, size) if size else 0


def draw_scout(state: GoldmineState, rng: Rng) -> list[GoldmineEvent]:
    """Turn up the next scout tile that fits for the current seat, or finish the scout map."""
    events: list[GoldmineEvent] = []
    while state.hidden.scout:
        tile = state.hidden.scout[0]
        drawn = TileDrawn(seat=state.current, tile=tile, source="scout")
        events.append(drawn)
        state = evolve(state, drawn)
        if fits_anywhere(cells(state), tile):
            return events
        back = TileReturned(tile=tile, depth=rng.between(0, len(state.hidden.stack)))
        events.append(back)
        state = evolve(state, back)
    events.append(ScoutMapLaid(seat=state.first))
    return events


def draw_stack(state: GoldmineState, seat: int, rng: Rng) -> list[GoldmineEvent]:
    """Draw until a tile fits; the caller has checked that some stack tile fits."""
    events: list[GoldmineEvent] = []
    board = cells(state)
    while True:
        tile = state.hidden.stack[0]
        drawn = TileDrawn(seat=seat, tile=tile, source="stack")
        events.append(drawn)
        state = evolve(state, drawn)
        if fits_anywhere(board, tile):
            return events
        back = TileReturned(tile=tile, depth=_return_depth(state, rng))
        events.append(back)
        state = evolve(state, back)
