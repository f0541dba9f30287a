"""The Merkle glue against RFC 9162's definitions, computed naively here from the text (§2.1.1 MTH,
§2.1.3.1 PATH, §2.1.4.1 PROOF/SUBPROOF) for every tree size up to 64, and the RFC's verification
algorithms (§2.1.3.2, §2.1.4.2) accepting every true proof and refusing altered ones."""

from __future__ import annotations

import hashlib

import pytest

from domain.transparency import merkle

SIZES = range(1, 65)
DATA = [f"leaf {i}".encode() for i in range(64)]


def mth(d: list[bytes]) -> bytes:
    """RFC 9162 §2.1.1, word for word."""
    n = len(d)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return hashlib.sha256(b"\x00" + d[0]).digest()
    k = 1
    while k * 2 < n:
        k *= 2
    return hashlib.sha256(b"\x01" + mth(d[:k]) + mth(d[k:])).digest()


def path(m: int, d: list[bytes]) -> list[bytes]:
    """RFC 9162 §2.1.3.1 PATH(m, D[n])."""
    n = len(d)
    if n == 1:
        return []
    k = merkle.split(n)
    return path(m, d[:k]) + [mth(d[k:])] if m < k else path(m - k, d[k:]) + [mth(d[:k])]


def subproof(m: int, d: list[bytes], b: bool) -> list[bytes]:
    """RFC 9162 §2.1.4.1 SUBPROOF(m, D[n], b)."""
    n = len(d)
    if m == n:
        return [] if b else [mth(d)]
    k = merkle.split(n)
    if m <= k:
        return subproof(m, d[:k], b) + [mth(d[k:])]
    return subproof(m - k, d[k:], False) + [mth(d[:k])]


def stored(n: int) -> dict[merkle.Node, bytes]:
    """The perfect nodes of a tree of `n` leaves, grown one leaf at a time as a store grows them."""
    nodes: dict[merkle.Node, bytes] = {}
    for i in range(n):
        frontier = {p: nodes[p] for p in merkle.pieces(0, i)}
        nodes.update(merkle.grown(i, frontier, [merkle.leaf_hash(DATA[i])]))
    return nodes


def hashes(ranges: list[merkle.Range], nodes: dict[merkle.Node, bytes]) -> list[bytes]:
    return [merkle.range_hash(lo, hi, nodes) for lo, hi in ranges]


def test_the_empty_tree_hashes_to_the_hash_of_nothing() -> None:
    assert merkle.fold([]) == mth([]) == merkle.EMPTY_ROOT


@pytest.mark.parametrize("n", SIZES)
def test_the_root_of_the_stored_nodes_is_the_rfc_tree_hash(n: int) -> None:
    assert merkle.range_hash(0, n, stored(n)) == mth(DATA[:n])


def test_growing_in_batches_gives_the_nodes_grown_one_by_one() -> None:
    nodes: dict[merkle.Node, bytes] = {}
    size = 0
    for batch in (1, 2, 5, 8, 3, 13, 32):
        frontier = {p: nodes[p] for p in merkle.pieces(0, size)}
        nodes.update(merkle.grown(size, frontier, [merkle.leaf_hash(x) for x in DATA[size:size + batch]]))
        size += batch
    assert nodes == stored(64)


@pytest.mark.parametrize("n", SIZES)
def test_every_inclusion_proof_is_the_rfc_path_and_verifies(n: int) -> None:
    nodes, root = stored(n), mth(DATA[:n])
    for m in range(n):
        proof = hashes(merkle.inclusion_ranges(m, n), nodes)
        assert proof == path(m, DATA[:n])
        leaf = merkle.leaf_hash(DATA[m])
        assert merkle.verify_inclusion(m, n, leaf, proof, root)
        assert not merkle.verify_inclusion(m, n, merkle.leaf_hash(b"another"), proof, root)
        if proof:
            assert not merkle.verify_inclusion(m, n, leaf, proof[:-1], root)
            assert not merkle.verify_inclusion(m, n, leaf, [proof[0][::-1], *proof[1:]], root)
            assert not merkle.verify_inclusion((m + 1) % n, n, leaf, proof, root)


@pytest.mark.parametrize("n", SIZES)
def test_every_consistency_proof_is_the_rfc_proof_and_verifies(n: int) -> None:
    nodes, second = stored(n), mth(DATA[:n])
    for m in range(1, n + 1):
        proof = hashes(merkle.consistency_ranges(m, n), nodes)
        assert proof == subproof(m, DATA[:n], True)
        first = mth(DATA[:m])
        assert merkle.verify_consistency(m, n, first, second, proof)
        forked = mth(DATA[:m - 1] + [b"forked"])
        assert not merkle.verify_consistency(m, n, forked, second, proof)
        if m < n:
            assert not merkle.verify_consistency(m, n, first, mth(DATA[:n - 1] + [b"forked"]), proof)
            assert not merkle.verify_consistency(m, n, first, second, proof[:-1])


def test_a_proof_needs_a_logarithmic_number_of_nodes() -> None:
    million = 1_000_000
    assert len(merkle.inclusion_ranges(123_456, million)) <= 20
    assert len(merkle.consistency_ranges(999_999, million)) <= 2 * 20
    assert len(merkle.proof_nodes(merkle.inclusion_ranges(123_456, million))) <= 2 * 20
