"""Keyset pagination shared by the read-model queries: opaque cursors, pages of `limit` rows.

A cursor is the sort key of the last row of a page, JSON-encoded and base64url'd;
a page is read with one row more than asked, so the last shown row becomes the
next cursor only when another page follows. Invalid cursors raise `BadCursor`
(the service maps it to a 422 problem).
"""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import Any

import msgspec


class BadCursor(ValueError):
    """A cursor this service did not issue (or issued for another list)."""


def encode_cursor(*values: Any) -> str:
    return base64.urlsafe_b64encode(msgspec.json.encode(list(values))).decode().rstrip("=")


def decode_cursor(text: str, types: tuple[type, ...]) -> list[Any]:
    """The values of a cursor from `encode_cursor`, checked against `types`."""
    try:
        values = msgspec.json.decode(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (binascii.Error, ValueError, msgspec.DecodeError) as exc:
        raise BadCursor("malformed cursor") from exc
    if not isinstance(values, list) or len(values) != len(types) or not all(
            isinstance(v, t) and not isinstance(v, bool) for v, t in zip(values, types)):
        raise BadCursor("malformed cursor")
    return values


def iso(at: datetime | None) -> str | None:
    return at.isoformat() if at is not None else None


def page(rows: list[Any], limit: int) -> tuple[list[Any], Any | None]:
    """The first `limit` rows and the last of them when another page follows."""
    return rows[:limit], (rows[limit - 1] if len(rows) > limit else None)
