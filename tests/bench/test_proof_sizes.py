"""`python -m bench.store --log`'s proof sizes (docs/audit.md's "Cost") at sizes small enough to count by RFC
9162's own definitions: every figure `bench.store.proof_sizes` reports is the one the RFC's PATH and PROOF give
over the same leaves (tests/domain/transparency/test_merkle.py's word-for-word MTH, PATH and SUBPROOF), and the
tree it builds its longest proofs over, remembering its perfect pieces of 2^10 leaves and more, has the RFC's
root."""

from __future__ import annotations

import base64
import json

import pytest

from bench.store import _virtual_tree, proof_sizes
from tests.domain.transparency.test_merkle import mth, path, subproof


def b64(hashes: list[bytes]) -> list[str]:
    return [base64.b64encode(h).decode() for h in hashes]


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13, 33, 64])
def test_proof_sizes_reports_the_rfcs_paths_and_consistency_proofs(n):
    d = [f"leaf {i}".encode() for i in range(n)]
    inclusion = [len(path(i, d)) for i in range(n)]
    consistency = [len(subproof(m, d, True)) for m in range(1, n + 1)]  # PROOF(m, D[n]) = SUBPROOF(m, D[n], true)
    longest, first = inclusion.index(max(inclusion)), consistency.index(max(consistency)) + 1
    compact = {"separators": (",", ":")}
    assert proof_sizes(n) == {
        "proof_leaves": n, "inclusion_hashes_max": max(inclusion), "inclusion_hashes_min": min(inclusion),
        "inclusion_max_share": round(inclusion.count(max(inclusion)) / n, 3), "inclusion_bytes": 32 * max(inclusion),
        "inclusion_path_json_bytes": len(json.dumps(b64(path(longest, d)), **compact)),
        "consistency_hashes_max": max(consistency),
        "consistency_max_share": round(consistency.count(max(consistency)) / n, 3),
        "consistency_bytes": 32 * max(consistency),
        "consistency_json_bytes": len(json.dumps({"first": first, "second": n, "path": b64(subproof(first, d, True))},
                                                 **compact)),
        "verified": True}


def test_of_five_leaves_the_first_four_prove_with_three_hashes_and_the_proof_from_three_is_the_longest():
    """RFC 9162 by hand: leaves 0-3 prove with 3 hashes, leaf 4 with 1; the proof from 3 leaves is the longest
    (leaf 2, leaf 3, MTH(D[0:2]), leaf 4)."""
    sizes = proof_sizes(5)
    assert (sizes["inclusion_hashes_max"], sizes["inclusion_hashes_min"], sizes["inclusion_max_share"]) == (3, 1, 0.8)
    assert (sizes["consistency_hashes_max"], sizes["consistency_max_share"]) == (4, 0.2)


@pytest.mark.parametrize("n", [1500, 2051])
def test_the_bench_trees_remembered_pieces_give_the_rfcs_root(n):
    d = [f"leaf {i}".encode() for i in range(n)]
    node = _virtual_tree(n)
    assert node(0, n) == mth(d) and node(0, 1024) == mth(d[:1024]) and node(1024, n) == mth(d[1024:])
    assert proof_sizes(n)["inclusion_hashes_max"] == (n - 1).bit_length()  # ⌈log2 n⌉
