"""Random legal play finishes every game, and everything `legal` offers `decide` accepts.

A bigger run is done by hand (see the report); this one keeps the suite fast.
"""

import msgspec
import pytest

from domain.coatl.game import GAME
from domain.coatl.state import check_invariants
from domain.kernel import Rng
from domain.simulate import play_random, start_table
from domain.table import Table

VARIANTS = [{}, {"sacrifice_tokens": False}, {"promo_cards": True},
            {"promo_cards": True, "sacrifice_tokens": False, "random_first_player": True}]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("options", VARIANTS, ids=["tokens", "no-tokens", "promo", "promo-no-tokens-random-first"])
def test_random_games_finish_without_errors(players, options):
    for i in range(8):
        result = play_random(Table(GAME), options, players, f"coatl-{players}-{i}-{options}".encode(),
                             invariant=check_invariants)
        assert result.error is None, result.error
        assert not result.capped and result.outcome is not None
        assert len(result.outcome.scores) == players


@pytest.mark.parametrize("players, options", [(2, {}), (4, {"promo_cards": True})])
def test_every_legal_command_is_accepted_by_decide(players, options):
    """DESIGN: legal and decide share one predicate; here every single offer is tried, not a sample."""
    table = Table(GAME)
    state, _ = start_table(table, options, players, f"every-{players}".encode())
    bot = Rng(b"every-bot", players)
    steps = 0
    while state.status == "active" and steps < 400:
        seat = bot.choice(table.to_act(state))
        offers = table.legal(state, seat)
        assert offers, f"seat {seat} must act but has no legal command"
        for command in offers:
            events = table.play(state, seat, command)
            check_invariants(table.fold(events, state).game)
            wire = msgspec.json.decode(msgspec.json.encode(command))
            assert table.decode_command(wire) == command
        state = table.fold(table.play(state, seat, bot.choice(offers)), state)
        steps += 1
    assert steps > 50
