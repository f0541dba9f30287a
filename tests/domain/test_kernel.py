"""The kernel's documented Rng and the platform lifecycle, on the test game."""

import hashlib

import pytest

from domain.kernel import Rng, RuleViolation, ranked, seed_commitment
from domain.simulate import play_random, start_table
from domain.table import GameEnded, SeedRevealed, Table
from testkit.tally import TALLY, Add


def test_rng_words_follow_the_documented_formula():
    rng = Rng(b"seed", 7)
    expected = hashlib.sha256(b"stela-rng\x00seed" + (7).to_bytes(8, "big") + (0).to_bytes(8, "big")).digest()
    assert rng.word() == int.from_bytes(expected[:8], "big")
    assert rng.draws == 1


def test_rng_is_deterministic_and_depends_on_version():
    a = [Rng(b"s", 1).below(1000) for _ in range(3)]
    assert len(set(a)) == 1
    assert Rng(b"s", 1).shuffle(range(20)) != Rng(b"s", 2).shuffle(range(20))


def test_rng_below_is_roughly_uniform_and_in_range():
    rng = Rng(b"uniform", 0)
    counts = [0] * 6
    for _ in range(6000):
        counts[rng.die() - 1] += 1
    assert all(850 < c < 1150 for c in counts)


def test_shuffle_is_a_permutation_and_leaves_input_alone():
    items = list(range(52))
    out = Rng(b"deck", 3).shuffle(items)
    assert sorted(out) == items and out != items and items == list(range(52))


def test_ranked_shares_ranks_on_ties():
    outcome = ranked([5, 9, 9, 1])
    assert outcome.ranks == [3, 1, 1, 4] and outcome.winners == [1, 2]


def test_seed_commitment_is_sha256_hex():
    assert seed_commitment(b"x") == hashlib.sha256(b"x").hexdigest()


def test_bad_seat_count_and_bad_options_are_rule_violations():
    table = Table(TALLY)
    with pytest.raises(RuleViolation) as exc:
        table.create({}, 9, b"s")
    assert exc.value.code == "table.bad_seat_count"
    with pytest.raises(RuleViolation) as exc:
        table.create({"target": "x"}, 2, b"s")
    assert exc.value.code == "table.bad_options"
    with pytest.raises(RuleViolation) as exc:
        table.create({"target": 1}, 2, b"s")
    assert exc.value.code == "tally.bad_options"


def test_join_rules():
    table = Table(TALLY)
    state = table.fold(table.create({}, 2, b"s"))
    state = table.fold(table.join(state, "p1", "Ann"), state)
    with pytest.raises(RuleViolation, match="already"):
        table.join(state, "p1", "Ann")
    with pytest.raises(RuleViolation) as exc:
        table.join(state, "p2", "Bob", seat=0)
    assert exc.value.code == "table.seat_taken"
    with pytest.raises(RuleViolation) as exc:
        table.start(state, "p1")
    assert exc.value.code == "table.seats_open"


def test_game_end_appends_outcome_then_seed():
    table = Table(TALLY)
    state, _ = start_table(table, {"target": 3}, 2, b"seed")
    events = table.play(state, 0, Add(3))
    assert isinstance(events[-2], GameEnded) and isinstance(events[-1], SeedRevealed)
    assert events[-1].seed == b"seed".hex()
    state = table.fold(events, state)
    assert state.status == "finished" and state.outcome.winners == [0]


def test_secret_seed_and_opponent_secrets_are_redacted_while_running():
    table = Table(TALLY)
    state, events = start_table(table, {}, 3, b"seed")
    for seat in [None, 0, 1, 2]:
        for event in events:
            shown = table.redact(event, seat, public=False)
            data = table.event_data(shown)
            if "seed" in data:
                assert data["seed"] is None
            if "secrets" in data:
                assert [i for i, s in enumerate(data["secrets"]) if s is not None] == ([seat] if seat is not None else [])


def test_random_play_finishes_tally_games_without_errors():
    table = Table(TALLY)
    for i in range(50):
        played = play_random(table, {"mode": "rolls"}, 2 + i % 3, f"g{i}".encode())
        assert played.error is None and played.outcome is not None
