"""`legal` builds its commands directly (rules_listing); here it is checked against its definition.

The definition, kept from before the fast listing: every candidate of `rules._candidates` that
`rules.refusal` (what `decide` asks) lets through, in the candidates' order, then `EndTurn` when
`refusal` allows it. Over random games (2 to 4 seats, every option, bots choosing by weight or
uniformly) both are compared at every state, for every seat, and on variants of the state
where the turn's budget or running action is changed or the seat to act is pushed to a limit
(`rigged`); every listed command of the games themselves must be decided.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from typing import Any

import pytest
from msgspec.structs import replace

from domain.catalog import GAMES
from domain.coatl import components as C
from domain.coatl import rules
from domain.coatl.commands import EndTurn, Piece
from domain.coatl.state import Bags, Coatl, CoatlState, completed
from domain.table import Table
from tests.budget import every
from tests.support.listing import play_checked

TABLE = Table(GAMES["coatl"])
OPTIONS = [{}, {"sacrifice_tokens": False}, {"promo_cards": True, "random_first_player": True},
           {"sacrifice_tokens": False, "promo_cards": True}]


def reference_legal(state: CoatlState, seat: int) -> list[Any]:
    """The listing by definition: the candidates `refusal` does not refuse, then `EndTurn` if allowed."""
    if seat not in rules.to_act(state):
        return []
    offers = [c for c in rules._candidates(state, seat) if rules.refusal(state, seat, c) is None]
    if state.phase == "play" and rules.refusal(state, seat, EndTurn()) is None:
        offers.append(EndTurn())
    return offers


def variants(state: CoatlState) -> list[CoatlState]:
    """`state` with other action budgets and running actions (a just completed coatl left alone)."""
    turn = state.turn
    if state.phase != "play" or turn is None or turn.pending is not None:
        return []
    return [replace(state, turn=replace(turn, actions_left=left, current=current))
            for left in (0, 1, 2) for current in (None, "take", "choose", "foretell", "build", "priests_duty")
            if (left, current) != (turn.actions_left, turn.current)]


PIECES = [Piece(kind, color) for kind in C.KINDS for color in C.COLORS]


def rigged(state: CoatlState, rnd: random.Random) -> list[CoatlState]:
    """`state` with the seat to act pushed to limits random play seldom reaches: a nearly empty bag, a
    nearly full board, an empty temple pile, no card left to draw, 4 cards beside each coatl, 3 coatls
    completed (its open ones carrying a card)."""
    turn = state.turn
    if state.phase != "play" or turn is None:
        return []
    hidden, player = state.hidden, state.players[turn.seat]

    def mine(**changes: Any) -> CoatlState:
        players = list(state.players)
        players[turn.seat] = replace(player, **changes)
        return replace(state, players=tuple(players))

    cards = list(hidden.deck + hidden.discard + state.row) or list(range(len(C.CARD_TYPE)))
    done = Coatl(pieces=(Piece("head", "red"), Piece("body", "red"), Piece("tail", "red")), cards=(cards[0],),
                 status="closed")
    bags = Bags(*(tuple(rnd.choice((0, 0, 1, 2)) for _ in C.COLORS) for _ in C.KINDS))
    return [replace(state, hidden=replace(hidden, bags=bags)),
            mine(board=tuple(sorted(rnd.choices(PIECES, k=rnd.choice((6, 7, 8)))))),
            replace(state, hidden=replace(hidden, piles=((),) + hidden.piles[1:])),
            replace(state, hidden=replace(hidden, piles=hidden.piles[:1] + ((),))),
            replace(state, hidden=replace(hidden, deck=(), discard=())),
            mine(coatls=tuple(replace(c, cards=tuple(rnd.sample(cards, 4))) for c in player.coatls)),
            mine(coatls=tuple(replace(c, cards=c.cards or (rnd.choice(cards),)) for c in player.coatls)
                 + (done,) * (C.MAX_COMPLETED - completed(player)))]


def check(state: CoatlState, listed: Counter[str]) -> None:
    for seat in range(state.seats):
        fast = rules.legal(state, seat)
        assert fast == reference_legal(state, seat), (seat, state)
        listed.update(type(c).__name__ for c in fast)


def play(seats: int, options: dict[str, Any], seed: bytes, weighted: bool, listed: Counter[str]) -> int:
    """One random game, checking every state on the way (a few of their variants too); its length."""
    weigh = TABLE.game.bot_weights if weighted else None
    return play_checked(TABLE, rules, seats, options, seed, lambda game: check(game, listed),
                        [(7, 0, lambda game, _rnd: variants(game)), (3, 1, rigged)],
                        lambda game, seat, legal: (None, weigh(game, seat, legal) if weigh else None))


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_fast_listing_is_the_definition_at_every_state_of_random_games(seats: int) -> None:
    listed: Counter[str] = Counter()
    steps = 0
    # the short budget plays each option set once, the two bots taking turns (the long: both)
    games_of = [(n, options, weighted) for n, options in enumerate(OPTIONS) for weighted in (True, False)]
    games = list(every(games_of, 2, start=seats))
    for n, options, weighted in games:
        seed = hashlib.sha256(f"coatl-listing/{seats}/{n}/{weighted}".encode()).digest()
        steps += play(seats, options, seed, weighted, listed)
    # the comparison was not vacuous: long games, and every kind of command was listed somewhere
    assert steps > 100 * len(games)
    assert set(listed) == {"KeepProphecies", "TakePieces", "TakeProphecy", "StartCoatl", "AddPiece",
                           "PlayProphecy", "PlayTemple", "CloseCoatl", "PerfectChoice", "Foretell",
                           "DiscardProphecy", "PriestsDuty", "EndTurn"}, listed
