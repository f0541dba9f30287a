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


def test_a_grid_grows_every_row_by_batches_resumes_where_it_stopped_and_sums_into_the_table(tmp_path, monkeypatch):
    from service.bots import balance

    monkeypatch.setattr(balance, "GRID", [("coatl", [2], {}), ("goldmine", [4], {"alliances": True})])
    out = tmp_path / "grid.jsonl"
    balance.grid(out, games=4, batch=2, strategies=["random"], jobs=1, seed=3)
    lines = out.read_text().splitlines()
    assert len(lines) == 4  # two rows, two batches each
    balance.grid(out, games=4, batch=2, strategies=["random"], jobs=1, seed=3)
    assert out.read_text().splitlines() == lines  # nothing played twice
    whole = seat_balance("coatl", 2, 4, "random", seed=3)
    text = balance.table(out)
    rates = "; ".join(f"{s}: {w / 4:.3f}" for s, w in enumerate(whole["seat_wins"]))
    assert "| coatl | 2 | random | 4 |" in text and "| goldmine alliances | 4 | random | 4 |" in text
    assert all(part in text for part in rates.split("; "))
    assert "all bots" not in text  # one strategy: nothing to add up
    balance.grid(out, games=2, batch=2, strategies=["greedy"], jobs=1, seed=3)
    both = balance.table(out)
    assert "| coatl | 2 | all bots | 6 |" in both and "| goldmine alliances | 4 | all bots | 6 |" in both
