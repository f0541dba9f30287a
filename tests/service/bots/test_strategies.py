"""The greedy bot's heuristics: it beats random play in every kind, from its own view and /legal only.

Games run in process (`headtohead.play_in_process`): each decision gets exactly the JSON the API would
send that seat — its view and its legal commands — and the arena refuses any command /legal did not offer.
"""

from __future__ import annotations

import random

import pytest

from service.bots.headtohead import match_in_process, play_in_process, wilson
from domain.catalog import GAMES
from service.bots.strategies import GreedyStrategy, RandomStrategy, default_scores, make_strategy, scorer

KINDS = ["tikal", "coatl", "tobago", "goldmine"]


@pytest.mark.slow  # many whole games per kind
@pytest.mark.parametrize("kind", KINDS)
def test_greedy_wins_most_games_against_random_with_seats_alternated(kind):
    games = 10
    out = match_in_process(kind, games, "greedy", "random", seed=2026)
    assert out["errors"] == 0 and out["greedy"] + out["random"] + out["draws"] == games
    assert out["greedy"] > games // 2, out


@pytest.mark.parametrize("kind", KINDS)
def test_both_strategies_only_ever_pick_commands_legal_offers_for_their_seat(kind):
    chosen: list[tuple[dict, list]] = []

    class Watching(GreedyStrategy):
        def decide(self, view, seat, commands):
            command = super().decide(view, seat, commands)
            assert view["seat"] == seat  # it judged from its own view, not another seat's
            chosen.append((command, commands))
            return command

    outcome, played = play_in_process(kind, [Watching(random.Random(1)), RandomStrategy(random.Random(2))],
                                      b"legal-only")
    assert outcome["winners"] and played > 0 and chosen
    assert all(command in commands for command, commands in chosen)


def test_every_hosted_kind_has_its_own_heuristic_reached_through_the_catalogue():
    assert all(GAMES[kind].bot_scores is not None and scorer(kind) is GAMES[kind].bot_scores for kind in GAMES)
    assert scorer("other") is default_scores


def test_a_kind_without_a_heuristic_acts_rather_than_ends_its_turn_or_passes():
    commands = [{"type": "other.EndTurn"}, {"type": "other.Pass"}, {"type": "other.Roll"}]
    assert default_scores({}, 0, commands) == [0.0, 0.0, 1.0]
    greedy = make_strategy("greedy", 3)
    assert all(greedy.decide({"kind": "other"}, 0, commands) == {"type": "other.Roll"} for _ in range(20))


def test_ties_are_broken_by_the_seeded_rng_so_a_seed_replays_the_same_choices():
    commands = [{"type": "other.Add", "n": n} for n in range(10)]
    picks = [[make_strategy("greedy", seed).decide({"kind": "other"}, 0, commands) for _ in range(5)]
             for seed in (4, 4, 5)]
    assert picks[0] == picks[1] and len({c["n"] for run in picks for c in run}) > 1


def test_without_a_view_greedy_still_picks_a_legal_command_and_counts_it_blind():
    greedy = GreedyStrategy(random.Random(6))
    commands = [{"type": "tikal.EndTurn"}, {"type": "tikal.EnterPiece", "q": 0, "r": 0, "leader": False}]
    assert greedy.decide(None, 0, commands) == commands[1] and greedy.blind == 1


def test_the_win_rate_interval_is_wilsons():
    assert wilson(0, 0) is None
    assert wilson(5, 10) == (0.237, 0.763)
    low, high = wilson(10, 10)
    assert high == 1.0 and 0.69 < low < 0.73


def test_an_unknown_strategy_is_refused():
    with pytest.raises(ValueError, match="unknown strategy"):
        make_strategy("minimax", 1)



def test_greedy_tobago_ends_the_game_it_once_drove_round_in_circles():
    """Batch 1, game 9 at two seats: both seats held clues no map would take and each turn drove between
    the brown map's last two candidates (59 -> 71 as the action, back with the steps left) for ever."""
    strategies = [make_strategy("greedy", f"1:9:{seat}") for seat in range(2)]
    outcome, played = play_in_process("tobago", strategies, b"balance/1/9", max_commands=5_000)
    assert outcome["winners"] and played < 5_000
