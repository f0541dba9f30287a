"""Command-line values shared by the `stela` commands and the bots' subcommands."""

from __future__ import annotations

import json
from typing import Any


def key_values(pairs: list[str]) -> dict[str, Any]:
    """`key=value` pairs; values parse as JSON when they can (numbers, booleans), else strings."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out
