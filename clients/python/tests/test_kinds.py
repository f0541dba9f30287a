"""The generated kind models (`stela_client.kinds`): the file is what `generate.py` writes from the
OpenAPI document, and real views and legal commands of every kind decode into them, encode back to
the very same JSON, and are accepted when posted as typed commands."""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path

import msgspec
import pytest

from stela_client import VersionConflict, kinds
from tests.e2e.sdk_support import seated

PACKAGE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PACKAGE))
import generate  # noqa: E402

KINDS = {"coatl": kinds.CoatlView, "goldmine": kinds.GoldmineView, "tikal": kinds.TikalView,
         "tobago": kinds.TobagoView}
CASES = sorted(KINDS)


def test_kinds_py_is_generated_from_the_document_and_in_sync():
    assert (PACKAGE / "stela_client" / "kinds.py").read_text() == generate.generated(), (
        "stela_client/kinds.py drifted from openapi/openapi.json: run `make openapi` (or python clients/python/generate.py)")


@pytest.mark.parametrize("kind", CASES)
async def test_real_views_and_commands_decode_typed_and_typed_commands_are_accepted(server, kind):
    game_id, players = await seated(server.url, kind, 2 if kind != "goldmine" else 3,
                                    msgspec.to_builtins(kinds.OPTIONS[kind]()))
    rng = random.Random(3)
    try:
        for _ in range(40):
            game = await players[0].game(game_id)
            if game.status != "active":
                break
            seat = game.to_act[0]
            view = msgspec.convert((await players[seat].game(game_id)).view, kinds.View)
            assert isinstance(view, KINDS[kind])
            legal = await players[seat].legal(game_id)
            typed = [msgspec.convert(c, kinds.Command) for c in legal.commands]
            assert [msgspec.to_builtins(c) for c in typed] == legal.commands  # nothing lost either way
            if typed:
                try:
                    await players[seat].command(game_id, rng.choice(typed), legal.version)
                except VersionConflict:
                    pass
    finally:
        await asyncio.gather(*(p.close() for p in players))
