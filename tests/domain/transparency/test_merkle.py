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


# Known answers from an independent implementation: the test vectors of transparency-dev/merkle (Go; the
# reference the Certificate Transparency and Go checksum-database logs are tested with), testonly/constants.go
# and proof/verify_test.go: eight leaf inputs, the root of every tree over their prefixes, and inclusion and
# consistency proofs in those trees (their leaf numbers are 1-based; here indexes are 0-based).
KAT_LEAVES = [bytes.fromhex(h) for h in ("", "00", "10", "2021", "3031", "40414243", "5051525354555657",
                                         "606162636465666768696a6b6c6d6e6f")]
KAT_ROOTS = [bytes.fromhex(h) for h in (
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328")]
KAT_INCLUSION = [  # (index, size, proof)
    (0, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (5, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (1, 5, ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
]
KAT_CONSISTENCY = [  # (first, second, proof)
    (1, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (6, 8, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 5, ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
    (6, 7, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (1, 1, []),
]
SOME_HASH = bytes.fromhex("abacaba000000000000000000000000000000000000000000060061e00123456")


def kat_nodes(n: int) -> dict[merkle.Node, bytes]:
    return merkle.grown(0, {}, [merkle.leaf_hash(d) for d in KAT_LEAVES[:n]])


def test_the_roots_are_the_reference_implementations() -> None:
    assert merkle.EMPTY_ROOT.hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    for n in range(1, 9):
        assert merkle.range_hash(0, n, kat_nodes(n)) == KAT_ROOTS[n - 1], n


def flipped(proof: list[bytes], i: int) -> list[bytes]:
    return [bytes([h[0] ^ 8]) + h[1:] if j == i else h for j, h in enumerate(proof)]


@pytest.mark.parametrize("index, size, expected", KAT_INCLUSION)
def test_inclusion_proofs_are_the_reference_implementations_and_its_corruptions_fail(index, size, expected) -> None:
    expected = [bytes.fromhex(h) for h in expected]
    assert hashes(merkle.inclusion_ranges(index, size), kat_nodes(size)) == expected
    root, leaf = KAT_ROOTS[size - 1], merkle.leaf_hash(KAT_LEAVES[index])
    assert merkle.verify_inclusion(index, size, leaf, expected, root)
    # the reference's corrupted probes (proof/verify_test.go corruptInclusionProof), each refused; a probe
    # is (index, size, root, leaf hash, proof) as there
    probes = [(index - 1, size, root, leaf, expected), (index + 1, size, root, leaf, expected),
              (index ^ 2, size, root, leaf, expected), (index, size * 2, root, leaf, expected),
              (index, size // 2, root, leaf, expected), (index, size, root, b"WrongLeaf", expected),
              (index, size, merkle.EMPTY_ROOT, leaf, expected), (index, size, SOME_HASH, leaf, expected),
              (index, size, root, leaf, [*expected, b""]), (index, size, root, leaf, [*expected, root]),
              (index, size, root, leaf, [b"", *expected]), (index, size, root, leaf, [root, *expected]),
              (index, size, root, leaf, expected[:-1]), (index, size, root, leaf, [expected[0], SOME_HASH, *expected[1:]]),
              *((index, size, root, leaf, flipped(expected, i)) for i in range(len(expected)))]
    accepted = [p[:2] for p in probes if p[0] >= 0 and merkle.verify_inclusion(p[0], p[1], p[3], p[4], p[2])]
    assert not accepted


@pytest.mark.parametrize("first, second, expected", KAT_CONSISTENCY)
def test_consistency_proofs_are_the_reference_implementations_and_its_corruptions_fail(first, second, expected) -> None:
    expected = [bytes.fromhex(h) for h in expected]
    assert hashes(merkle.consistency_ranges(first, second), kat_nodes(second)) == expected
    r1, r2 = KAT_ROOTS[first - 1], KAT_ROOTS[second - 1]
    assert merkle.verify_consistency(first, second, r1, r2, expected)
    if not expected:  # the reference checks the corruptions of non-trivial proofs only
        return
    # the reference's corrupted probes (proof/verify_test.go corruptConsistencyProof), each refused
    probes = [(first - 1, second, r1, r2, expected), (first + 1, second, r1, r2, expected),
              (first ^ 2, second, r1, r2, expected), (first, second * 2, r1, r2, expected),
              (first, second // 2, r1, r2, expected), (first, second, b"WrongRoot", r2, expected),
              (first, second, r1, b"WrongRoot", expected), (first, second, r2, r1, expected),
              (first, second, r1, r2, []), (first, second, r1, r2, [*expected, b""]),
              (first, second, r1, r2, [*expected, r1]), (first, second, r1, r2, [*expected, r2]),
              (first, second, r1, r2, [b"", *expected]), (first, second, r1, r2, [r1, *expected]),
              (first, second, r1, r2, [r2, *expected]), (first, second, r1, r2, [expected[0], *expected]),
              (first, second, r1, r2, expected[:-1]),
              *((first, second, r1, r2, [bytes([h[0] ^ 16]) + h[1:] if j == i else h for j, h in enumerate(expected)])
                for i in range(len(expected)))]
    accepted = [p[:2] for p in probes if merkle.verify_consistency(*p)]
    assert not accepted
