"""RFC 9162 (Certificate Transparency 2.0) Merkle tree hashing, proofs and their verification.

The tree over leaves d(0) .. d(n-1) is the RFC's MTH: the hash of the empty tree is SHA-256 of nothing;
a leaf's is SHA-256(0x00 || d); an inner node's is SHA-256(0x01 || left || right), where for n > 1 the
left subtree holds the first k leaves, k the largest power of two smaller than n (§2.1.1). Every subtree
of that tree is either perfect (2^l leaves, starting at a multiple of 2^l) or lies on the right edge, and
the hash of a range [lo, hi) of it is the right fold of the perfect pieces its size's bits cut it into.

A store keeps only the perfect subtrees' hashes, as nodes (level l, index i) = the range
[i * 2^l, (i + 1) * 2^l); `pieces` names the nodes a range is made of, `range_hash` folds them, and
`grown` computes the nodes that leaves added to a tree complete. The proofs are the RFC's PATH (§2.1.3.1)
and SUBPROOF (§2.1.4.1) given as the ranges whose hashes they list (`inclusion_ranges`,
`consistency_ranges`), so a store answers a proof with O(log n) node reads; `verify_inclusion` and
`verify_consistency` are the RFC's verification algorithms (§2.1.3.2, §2.1.4.2), written from the text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

Range = tuple[int, int]  # [lo, hi) over leaf indexes
Node = tuple[int, int]  # (level, index): the perfect subtree [index * 2^level, (index + 1) * 2^level)
EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(data: bytes) -> bytes:
    """The RFC's leaf hash: SHA-256(0x00 || data)."""
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The RFC's inner node hash: SHA-256(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def split(n: int) -> int:
    """The largest power of two smaller than `n` (n > 1): the size of the left subtree."""
    return 1 << ((n - 1).bit_length() - 1)


def pieces(lo: int, hi: int) -> list[Node]:
    """The perfect subtrees the range [lo, hi) of the tree is made of, left to right (the range must be a
    subtree of some RFC tree: perfect, or ending at that tree's size with `lo` aligned to its largest piece)."""
    out: list[Node] = []
    size = hi - lo
    for level in range(size.bit_length() - 1, -1, -1):
        if size >> level & 1:
            out.append((level, lo >> level))
            lo += 1 << level
    return out


def fold(hashes: Sequence[bytes]) -> bytes:
    """The hash of a range from its pieces' hashes, left to right (each piece is the left of the rest)."""
    if not hashes:
        return EMPTY_ROOT
    acc = hashes[-1]
    for h in reversed(hashes[:-1]):
        acc = node_hash(h, acc)
    return acc


def range_hash(lo: int, hi: int, nodes: Mapping[Node, bytes]) -> bytes:
    """MTH of the leaves [lo, hi) from the perfect nodes it is made of (all of them in `nodes`)."""
    return fold([nodes[p] for p in pieces(lo, hi)])


def inclusion_ranges(index: int, size: int) -> list[Range]:
    """PATH(index, D[0:size]) as ranges, leaf side first (RFC 9162 §2.1.3.1)."""
    out: list[Range] = []
    lo, hi, m = 0, size, index
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size}")
    while hi - lo > 1:
        k = split(hi - lo)
        if m < k:
            out.append((lo + k, hi))
            hi = lo + k
        else:
            out.append((lo, lo + k))
            lo, m = lo + k, m - k
    return out[::-1]


def consistency_ranges(first: int, second: int) -> list[Range]:
    """PROOF(first, D[0:second]) = SUBPROOF(first, D[0:second], true) as ranges (RFC 9162 §2.1.4.1)."""
    if not 0 < first <= second:
        raise ValueError(f"no consistency proof from {first} to {second}")
    out: list[Range] = []
    lo, hi, m, whole = 0, second, first, True
    while m != hi - lo:
        k = split(hi - lo)
        if m <= k:
            out.append((lo + k, hi))
            hi = lo + k
        else:
            out.append((lo, lo + k))
            lo, m, whole = lo + k, m - k, False
    if not whole:
        out.append((lo, hi))
    return out[::-1]


def proof_nodes(ranges: Sequence[Range]) -> list[Node]:
    """Every perfect node the hashes of `ranges` need (what a store reads to answer a proof)."""
    return sorted({p for lo, hi in ranges for p in pieces(lo, hi)})


def verify_inclusion(index: int, size: int, leaf: bytes, path: Sequence[bytes], root: bytes) -> bool:
    """RFC 9162 §2.1.3.2: whether `path` proves the leaf hash `leaf` is leaf `index` of the tree `root`."""
    if index >= size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def verify_consistency(first: int, second: int, first_root: bytes, second_root: bytes,
                       path: Sequence[bytes]) -> bool:
    """RFC 9162 §2.1.4.2: whether `path` proves the tree (`first`, `first_root`) is a prefix of
    (`second`, `second_root`)."""
    if first == second:
        return not path and first_root == second_root
    if not 0 < first < second or not path:
        return False
    path = list(path)
    if first & (first - 1) == 0:  # a power of two: the first tree's root is the proof's implicit first node
        path.insert(0, first_root)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return fr == first_root and sr == second_root and sn == 0


def grown(size: int, frontier: Mapping[Node, bytes], leaves: Sequence[bytes]) -> dict[Node, bytes]:
    """The perfect nodes (leaves at level 0 included) that appending the leaf hashes `leaves` to a tree of
    `size` leaves creates; `frontier` holds the old tree's pieces (`pieces(0, size)`), the only old nodes a
    new one can have as its left child."""
    known = dict(frontier)
    new: dict[Node, bytes] = {}
    for offset, h in enumerate(leaves):
        index, level = size + offset, 0
        known[(0, index)] = new[(0, index)] = h
        while index & 1:  # a right child completes its parent
            h = node_hash(known[(level, index - 1)], h)
            level, index = level + 1, index >> 1
            known[(level, index)] = new[(level, index)] = h
    return new

