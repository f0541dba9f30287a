"""The seat-balance runner (docs/balance.md): per-seat wins and intervals from bots in every seat."""

from service.bots.balance import seat_balance


def test_balance_counts_every_seat_and_gives_an_interval_per_seat():
    result = seat_balance("goldmine", 2, 2, "random", seed=7)
    assert result["games"] == 2 and len(result["seat_wins"]) == len(result["ci95"]) == 2
    assert sum(result["seat_wins"]) >= 2 - result["errors"]
    assert all(lo <= rate <= hi for rate, (lo, hi) in zip(result["seat_rates"], result["ci95"]))


def test_a_batch_gives_the_same_numbers_whatever_the_number_of_jobs():
    alone = seat_balance("coatl", 2, 12, "random", seed=3)
    shared = seat_balance("coatl", 2, 12, "random", seed=3, jobs=2)
    assert {k: v for k, v in alone.items() if k != "seconds"} == {k: v for k, v in shared.items() if k != "seconds"}
    assert alone["commands"] > 12 and alone["errors"] == 0


def test_random_picks_the_index_its_json_choice_would_have_been():
    from service.bots.strategies import make_strategy

    commands = [{"type": "x.Go", "n": n} for n in range(7)]
    by_json, by_index = make_strategy("random", 9), make_strategy("random", 9)
    assert [by_json.decide(None, 0, commands)["n"] for _ in range(30)] == [by_index.pick(7) for _ in range(30)]
