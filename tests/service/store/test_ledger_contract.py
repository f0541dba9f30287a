"""The transparency log's store contract, memory and PostgreSQL: leaves written with the events they
record (alone, grouped, a round's games), integrated in commit order, roots and proofs that verify, and
on PostgreSQL a log that refuses every change."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import pytest

from domain.transparency import merkle
from domain.transparency.leaves import leaf
from service.store.ledger import proof, root
from service.store.postgres import PostgresStore
from service.store.protocol import ConcurrencyError, Metadata, NewEvent, NewGame
from tests.service.store.test_store_contract import store  # noqa: F401 - the memory and PostgreSQL stores


def created(seats: int = 2) -> NewEvent:
    return NewEvent("table.GameCreated", {"kind": "tikal", "options": {}, "seats": seats,
                                          "seed_commitment": "c" * 64, "seed": "5" * 64})


def ending() -> list[NewEvent]:
    return [NewEvent("table.GameEnded", {"outcome": {"scores": [1, 0], "ranks": [1, 2], "winners": [0]}}), NewEvent("table.SeedRevealed",
                                                                                     {"seed": "5" * 64})]


def sid() -> str:
    return f"g-{uuid.uuid4()}"


def mth(hashes: list[bytes]) -> bytes:
    """RFC 9162 §2.1.1 over leaf hashes."""
    if len(hashes) == 1:
        return hashes[0]
    k = merkle.split(len(hashes))
    return merkle.node_hash(mth(hashes[:k]), mth(hashes[k:]))


async def integrated(store) -> int:
    """Integrate until no written leaf is left pending; the tree's size. On PostgreSQL one run can leave a
    committed leaf for the next: the horizon (projections.log.HORIZON) holds at a transaction it saw in
    progress and could not place in another database once that transaction has ended, and the test
    databases share one cluster. The service's worker integrates again at its next turn; a test does too."""
    ledger = store.ledger()
    deadline = asyncio.get_running_loop().time() + 30
    while True:
        size = await ledger.integrate()
        if size == await written(store) or asyncio.get_running_loop().time() > deadline:
            return size
        await asyncio.sleep(0.05)


async def written(store) -> int:
    """How many leaves were written, integrated or pending."""
    if isinstance(store, PostgresStore):
        return await store.pool.fetchval("SELECT count(*) FROM log_entries")
    ledger = store.ledger()
    return len(ledger.leaves) + len(ledger.pending)


async def test_a_creation_an_end_and_a_seed_each_write_one_leaf_of_their_stream(store):
    game = sid()
    await store.append(game, 0, [created()], Metadata(), kind="tikal")
    await store.append(game, 1, [NewEvent("table.SeatTaken", {"seat": 0, "player_id": "p", "name": "p"})], Metadata())
    await store.append(game, 2, ending(), Metadata())
    await integrated(store)
    events = await store.read_stream(game)
    entries = await store.ledger().entries_of(game)
    assert [(e.version, e.body) for e in entries] == [
        (ev.version, leaf(game, ev.version, ev.type, ev.data, ev.hash)) for ev in events if ev.version != 2]
    assert all(e.hash == merkle.leaf_hash(e.body) for e in entries)
    assert "5" * 64 not in b"".join(e.body for e in entries).decode()  # the seed never enters the log


async def test_a_refused_append_writes_no_leaf(store):
    game = sid()
    await store.append(game, 0, [created()], Metadata())
    with pytest.raises(ConcurrencyError):
        await store.append(game, 0, [created(3)], Metadata())
    await integrated(store)
    assert [e.version for e in await store.ledger().entries_of(game)] == [1]


async def test_grouped_appends_and_a_rounds_games_write_their_leaves(store):
    games = [sid() for _ in range(40)]
    await asyncio.gather(*(store.append(g, 0, [created()], Metadata()) for g in games))
    owner, round_games = sid(), [sid() for _ in range(3)]
    await store.append(owner, 0, [NewEvent("tournament.TournamentCreated", {"seats": 2, "seed_commitment": "d" * 64})],
                       Metadata())
    await store.append(owner, 1, [NewEvent("tournament.RoundPaired", {})], Metadata(),
                       games=[NewGame(game_id=g, kind="tikal", batches=[([created()], Metadata())], tournament_id=owner,
                                      round=1) for g in round_games])
    await integrated(store)
    for g in [*games, owner, *round_games]:
        assert [e.version for e in await store.ledger().entries_of(g)] == [1]


async def test_the_tree_is_the_rfc_tree_of_the_leaves_in_index_order_and_its_proofs_verify(store):
    for _ in range(5):
        await store.append(sid(), 0, [created()], Metadata())
    ledger = store.ledger()
    size = await integrated(store)
    entries = await ledger.entries(0, size)
    assert [e.index for e in entries] == list(range(size))
    head = await root(ledger, size)
    assert head == mth([e.hash for e in entries])
    for m in (0, size // 2, size - 1):
        path = await proof(ledger, merkle.inclusion_ranges(m, size))
        assert merkle.verify_inclusion(m, size, entries[m].hash, path, head)
    earlier = max(1, size - 3)
    path = await proof(ledger, merkle.consistency_ranges(earlier, size))
    assert merkle.verify_consistency(earlier, size, await root(ledger, earlier), head, path)


async def test_checkpoints_and_cosignatures_are_kept_once_per_size_and_witness(store):
    ledger = store.ledger()
    await store.append(sid(), 0, [created()], Metadata())
    size = await ledger.integrate()
    first = await ledger.add_checkpoint(size, b"r" * 32, "note one\n")
    assert (await ledger.add_checkpoint(size, b"x" * 32, "note two\n")).note == first.note
    assert (await ledger.checkpoint()).size == size and (await ledger.checkpoint(size)).root == b"r" * 32
    await ledger.add_cosignature(size, "w.example", "— w.example AAAA\n")
    await ledger.add_cosignature(size, "w.example", "— w.example BBBB\n")
    assert await ledger.cosignatures(size) == ["— w.example AAAA\n"]


@pytest.mark.parametrize("statement", [
    "UPDATE log_entries SET body = 'x'", "DELETE FROM log_entries", "DELETE FROM log_nodes",
    "UPDATE log_leaves SET entry = entry", "TRUNCATE log_checkpoints CASCADE", "DELETE FROM log_cosignatures"])
async def test_the_database_refuses_to_change_or_remove_anything_in_the_log(pg_dsn, statement):
    store = await PostgresStore.connect(pg_dsn, 2)
    try:
        await store.append(sid(), 0, [created()], Metadata())
        await store.ledger().integrate()
        await store.ledger().add_checkpoint(await store.ledger().size(), b"r" * 32, "n\n")
        await store.pool.execute("INSERT INTO log_cosignatures (size, witness, line) "
                                 "SELECT max(size), 'w', 'l' FROM log_checkpoints ON CONFLICT DO NOTHING")
        with pytest.raises(asyncpg.InsufficientPrivilegeError, match="append-only"):
            await store.pool.execute(statement)
    finally:
        await store.close()


async def test_a_held_leaf_waits_while_later_ones_are_integrated_then_is_integrated_once(store):
    game, after = sid(), sid()
    await store.append(game, 0, [created()], Metadata())
    await store.append(game, 1, ending(), Metadata())
    await store.append(after, 0, [created()], Metadata())
    sealed = {game}

    async def held(stream_id: str, body: bytes) -> bool:  # a sealed game's end and seed wait
        return stream_id in sealed and b'"leaf":"created"' not in body

    ledger = store.ledger()
    await ledger.integrate(held=held)
    await ledger.integrate(held=held)
    assert [e.version for e in await ledger.entries_of(game)] == [1]
    passed = (await ledger.entries_of(after))[0].index
    sealed.clear()
    size = await ledger.integrate(held=held)
    assert await ledger.integrate() == size  # nothing is integrated twice
    mine = await ledger.entries_of(game)
    assert [e.version for e in mine] == [1, 2, 3] and all(e.index > passed for e in mine[1:])
    entries = await ledger.entries(0, size)
    assert [e.index for e in entries] == list(range(size)) and len({e.body for e in entries}) == size
    head = await root(ledger, size)
    assert head == mth([e.hash for e in entries])
    for e in mine:
        assert merkle.verify_inclusion(e.index, size, e.hash, await proof(ledger, merkle.inclusion_ranges(e.index, size)),
                                       head)
