"""The seat-balance runner (docs/balance.md): per-seat wins and intervals from bots in every seat."""

from service.bots.balance import seat_balance


def test_balance_counts_every_seat_and_gives_an_interval_per_seat():
    result = seat_balance("goldmine", 2, 2, "random", seed=7)
    assert result["games"] == 2 and len(result["seat_wins"]) == len(result["ci95"]) == 2
    assert sum(result["seat_wins"]) >= 2 - result["errors"]
    assert all(lo <= rate <= hi for rate, (lo, hi) in zip(result["seat_rates"], result["ci95"]))
