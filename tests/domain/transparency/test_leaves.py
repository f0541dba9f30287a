"""Which events write leaves, and what a leaf may and may not carry (never the secret seed)."""

from __future__ import annotations

import hashlib

import msgspec

from domain.kernel import seed_commitment
from domain.transparency.leaves import leaf, role

SEED = "ab" * 32
CREATED = {"kind": "tikal", "options": {"variant": "basic"}, "seats": 2,
           "seed_commitment": seed_commitment(bytes.fromhex(SEED)), "seed": SEED}


def test_a_game_or_competition_logs_its_creation_end_and_seed_and_nothing_else() -> None:
    assert [role(t) for t in ("table.GameCreated", "table.GameEnded", "table.GameAborted", "table.SeedRevealed",
                              "tournament.TournamentCreated", "arena.ArenaEnded", "arena.SeedRevealed")] == [
        "created", "ended", "ended", "seed", "created", "ended", "seed"]
    assert role("table.SeatTaken") is None and role("tikal.TilePlaced") is None
    assert leaf("g", 3, "table.SeatTaken", {"seat": 0}, "00" * 32) is None


def test_a_creation_leaf_commits_to_kind_seats_options_and_seed_commitment_but_never_shows_the_seed() -> None:
    body = leaf("g-1", 1, "table.GameCreated", CREATED, "11" * 32)
    assert body is not None and SEED not in body.decode()
    record = msgspec.json.decode(body)
    assert record["kind"] == "tikal" and record["seats"] == 2
    assert record["seed_commitment"] == CREATED["seed_commitment"]
    settings = {k: v for k, v in CREATED.items() if k != "seed"}
    assert record["options_digest"] == hashlib.sha256(msgspec.json.encode(settings, order="sorted")).hexdigest()
    assert leaf("g-1", 1, "table.GameCreated", dict(CREATED, seed=None), "11" * 32) == body


def test_an_end_leaf_digests_the_outcome_salted_by_the_chain_hash() -> None:
    outcome = {"outcome": {"scores": [3, 1], "ranks": [1, 2], "winners": [0]}}
    one = msgspec.json.decode(leaf("g-1", 40, "table.GameEnded", outcome, "22" * 32))
    other = msgspec.json.decode(leaf("g-2", 40, "table.GameEnded", outcome, "33" * 32))
    assert one["outcome_digest"] != other["outcome_digest"]
    assert one["hash"] == "22" * 32 and one["version"] == 40 and one["leaf"] == "ended"
