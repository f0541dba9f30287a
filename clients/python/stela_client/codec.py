"""JSON in and out: decoders built once per type, and the problem document of an error answer."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

T = TypeVar("T")
_DECODERS: dict[Any, msgspec.json.Decoder[Any]] = {}
encode = msgspec.json.Encoder().encode


def decode(body: bytes | str, type: type[T]) -> T:
    """`body` decoded as `type` (decoders are built once per type)."""
    decoder = _DECODERS.get(type)
    if decoder is None:
        decoder = _DECODERS[type] = msgspec.json.Decoder(type)
    return decoder.decode(body)  # type: ignore[no-any-return]


def problem_of(body: bytes) -> dict[str, Any]:
    """The problem document of an error answer (a body that is not one becomes its `detail`)."""
    try:
        doc = msgspec.json.decode(body)
    except msgspec.DecodeError:
        return {"detail": body[:500].decode(errors="replace")}
    return doc if isinstance(doc, dict) else {"detail": str(doc)[:500]}
