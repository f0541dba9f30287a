"""No seat's view or redacted events show another seat's hand or temples, the deck order,
the piles below their tops or the bags' colours (spec: Hidden information).

Views are checked by perturbation: changing every secret a seat may not know must not change
its view. Redacted events are checked field by field against the spec's list of secrets.
"""

import msgspec
import pytest
from msgspec.structs import replace

from domain.coatl.events import (DeckReshuffled, GameSetUp, OpeningHandKept, PriestsDutyUsed, ProphecyDiscarded,
                                 ProphecyTaken)
from domain.coatl.game import GAME
from domain.coatl.state import Bags, CoatlState
from domain.simulate import play_random
from domain.table import Table


def perturbed(state: CoatlState, seat: int | None) -> CoatlState:
    """`state` with every secret hidden from `seat` changed (sizes kept)."""
    h = state.hidden

    def others(values, change):
        return tuple(v if s == seat else change(v) for s, v in enumerate(values))

    shift = lambda cards: tuple(c + 100 for c in cards)  # noqa: E731
    bags = Bags(head=h.bags.head[1:] + h.bags.head[:1], tail=h.bags.tail[::-1], body=h.bags.body[2:] + h.bags.body[:2])
    hidden = replace(h, hands=others(h.hands, shift), temples=others(h.temples, shift), dealt=others(h.dealt, shift),
                     deck=shift(h.deck), discard=shift(h.discard), bags=bags,
                     piles=tuple(p[:1] + shift(p[1:]) for p in h.piles))

    return replace(state, hidden=hidden)


def check_redacted(event, seat):
    redacted = GAME.redact(event, seat)
    msgspec.json.encode(redacted)
    if isinstance(event, GameSetUp):
        assert redacted.deck is None and redacted.piles is None
        assert all(d is None for s, d in enumerate(redacted.dealt) if s != seat)
        assert all(t is None for s, t in enumerate(redacted.temples) if s != seat)
        assert redacted.pile_tops == tuple(p[0] if p else None for p in event.piles)
    if isinstance(event, DeckReshuffled):
        assert redacted.deck is None
    if getattr(event, "seat", seat) != seat:
        if isinstance(event, OpeningHandKept):
            assert redacted.kept is None and redacted.discarded is None
        if isinstance(event, ProphecyTaken) and event.source == "deck" or isinstance(event, ProphecyDiscarded):
            assert redacted.card is None
        if isinstance(event, PriestsDutyUsed):
            assert redacted.temple is None


@pytest.mark.parametrize("players, options", [(2, {}), (3, {"promo_cards": True}), (4, {})])
def test_views_and_redacted_events_hide_other_seats_secrets(players, options):
    table = Table(GAME)
    result = play_random(table, options, players, f"hidden-{players}".encode(), check_views=False)
    assert result.error is None and result.outcome is not None
    state = None
    for event in result.events:
        state = table.evolve(state, event)
        if state.game is None or type(event).__module__ != "domain.coatl.events":
            continue
        for seat in [None, *range(players)]:
            check_redacted(event, seat)
            seen = msgspec.json.encode(GAME.view(state.game, seat))
            assert seen == msgspec.json.encode(GAME.view(perturbed(state.game, seat), seat))


def test_a_seat_sees_its_own_hand_and_temples():
    table = Table(GAME)
    result = play_random(table, {}, 2, b"own", check_views=False, max_commands=30)
    game = table.fold(result.events).game
    mine = GAME.view(game, 1).players[1]
    assert tuple(c.id for c in mine.hand) == game.hidden.hands[1]
    assert tuple(t.id for t in mine.temples) == game.hidden.temples[1]
