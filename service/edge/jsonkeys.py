"""Duplicate keys in a JSON object: refused, never "the last one wins".

msgspec (like most JSON decoders) keeps the last of two equal keys, so `{"amount": 1, "amount": 9}`
would mean whatever a proxy, a log reader or another decoder takes it to mean. `duplicate_key`
finds them in linear time, in two steps so an ordinary body costs one regular-expression pass:
every string token of the body is matched in order, each match starting where the last one
ended (a token never starts inside another, so the scan stays aligned), and only when some key's
text occurs twice (the same key in two sibling objects is fine) or a key holds an escape is the
body decoded again with the standard library's C scanner, which hands each object's pairs to a
hook that notices a repeat.

Linear on any input, hostile ones included: a string token's body is matched possessively (never
backtracked into) and ends at its closing quote or at the end of the body. An unterminated string
therefore ends the scan at once, since the body is malformed and the decoder refuses it in its own
words, instead of the scan starting again at every later quote (the quadratic cost of a body of
unterminated `\\"` pairs). Bodies are bounded before this runs (`service.edge.middleware`).
"""

from __future__ import annotations

import json
import re

# a string token (possessive: never backtracked into) with its closing quote if it has one, then a colon if it is a key
_STRING = re.compile(rb'("(?:[^"\\]++|\\.)*+("?))(\s*+:)?', re.DOTALL)


class _Repeated(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    seen: dict[str, object] = {}
    for key, value in pairs:
        if key in seen:
            raise _Repeated(key)
        seen[key] = value
    return seen


def duplicate_key(body: bytes) -> str | None:
    """The first key some object of the JSON `body` repeats, else None (None too for malformed JSON,
    which the decoder refuses in its own words)."""
    tokens = _STRING.findall(body)
    if tokens and not tokens[-1][1]:
        return None  # an unterminated string (only the last token can be one): malformed
    keys = [text for text, _, colon in tokens if colon]
    if len(set(keys)) == len(keys) and (b"\\" not in body or not any(b"\\" in key for key in keys)):
        return None
    try:
        json.loads(body, object_pairs_hook=_pairs)
    except _Repeated as repeated:
        return repeated.key
    except (ValueError, RecursionError):
        return None
    return None
