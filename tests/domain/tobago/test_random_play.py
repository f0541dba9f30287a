"""Random legal play over every player count, curse option, advanced amulets and both island kinds
(DESIGN, "A game is a decider"): no contract breach, an outcome, replay reproduces the state; and nothing
secret leaks into another seat's view or redacted events (spec, *Hidden information*)."""

import msgspec
import pytest

from domain.kernel import Rng
from domain.simulate import play_random, start_table
from domain.table import Table
from domain.tobago.components import CLUE_IDS
from domain.tobago.events import CluesDrawn, CurseStruck, DecksShuffled, HandExchanged, TreasuresDrawn
from domain.tobago.game import GAME
from domain.tobago.state import check_invariants

TABLE = Table(GAME)
VARIANTS = [
    {},
    {"curse_effect": "continue", "curse_returns": True},
    {"curse_effect": "amulet_holders", "curse_cards": 1, "curse_depth": 21},
    {"advanced_amulets": True, "island": "generated"},
    {"advanced_amulets": True, "curse_effect": "amulet_holders", "random_first_seat": True, "curse_returns": True},
    {"island": "generated", "curse_effect": "continue", "curse_depth": 21},
]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_random_games_finish_without_errors(players, variant):
    for game in range(2):
        result = play_random(TABLE, VARIANTS[variant], players, b"tobago-%d-%d-%d" % (players, variant, game),
                             invariant=check_invariants, check_views=game == 0, alternatives=1)
        assert result.error is None, result.error
        assert result.outcome is not None and not result.capped


def test_random_play_reaches_curses_shares_and_every_amulet_power():
    seen: set[str] = set()
    for n in range(6):
        result = play_random(TABLE, {"advanced_amulets": True, "curse_effect": "continue"}, 3, b"cover-%d" % n,
                             check_views=False, alternatives=0)
        assert result.error is None
        seen |= {type(e).__name__ for e in result.events}
        seen |= {e.power for e in result.events if type(e).__name__ == "AmuletSpent"}
    assert {"CurseStruck", "CardTaken", "CardPassed", "StartHunt" and "CluePlayed", "AmuletsAppeared",
            "RoseDoubled", "RosesSwapped", "CandidateRemoved", "GameFinished"} <= seen
    assert {"clue", "step", "remove", "exchange", "double", "swap"} <= seen


def _secrets(state, seat):
    """Strings that `seat` must never see: other hands, other treasure piles and draws, deck orders."""
    hidden = state.hidden
    out = []
    for other, private in enumerate(hidden.private):
        if other != seat:
            out += [f'"{c}"' for c in private.hand]
    return out


def test_views_and_redacted_events_hide_every_other_seats_secrets():
    for n, players in enumerate((2, 3, 4)):
        result = play_random(TABLE, {"curse_effect": "amulet_holders"}, players, b"secret-%d" % n,
                             check_views=False, alternatives=0)
        assert result.error is None
        state = None
        for event in result.events:
            state = TABLE.evolve(state, event)
            if state.game is None or state.status != "active":
                continue
            game = state.game
            for seat in [None, *range(players)]:
                view = GAME.view(game, seat)
                text = msgspec.json.encode(view).decode()
                for secret in _secrets(game, seat):
                    assert secret not in text
                for other in range(players):
                    if other != seat:
                        assert "hand" not in view["players"][other]
                assert view["me"] is None if seat is None else view["me"]["seat"] == seat
                redacted = TABLE.redact(event, seat, public=False)
                msgspec.json.encode(redacted)
                if isinstance(event, DecksShuffled):
                    assert redacted.clue_deck is None and redacted.treasure_deck is None
                if isinstance(event, (CluesDrawn, HandExchanged)) and event.seat != seat:
                    assert redacted.cards is None
                if isinstance(event, TreasuresDrawn) and (event.seat != seat or event.extra):
                    assert redacted.cards is None
                if isinstance(event, CurseStruck):
                    assert all(v is None for s, v in zip(redacted.treasure_losers, redacted.lost_values) if s != seat)
                if hasattr(redacted, "order") or hasattr(redacted, "pile"):
                    assert getattr(redacted, "order", None) is None and getattr(redacted, "pile", None) is None


def test_a_seat_sees_its_own_hand_treasures_and_drawn_cards_only():
    state, _ = start_table(TABLE, {}, 3, b"mine")
    view = GAME.view(state.game, 1)
    assert view["me"]["hand"] == [] and view["players"][0]["hand_count"] == 0
    assert all(card in CLUE_IDS for card in view["me"]["hand"])


def test_replaying_the_log_reproduces_the_state():
    result = play_random(TABLE, {"island": "generated", "advanced_amulets": True}, 4, b"replay", check_views=False)
    assert result.error is None
    live = TABLE.fold(result.events)
    assert msgspec.json.encode(TABLE.fold(result.events)) == msgspec.json.encode(live)
    assert Rng(b"x", 0).below(3) in (0, 1, 2)
