"""CLI commands of the read side (`stela projector`, `stela projections rebuild`)."""

from __future__ import annotations

import argparse


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register the read-side subcommands on the `stela` parser."""
