"""`Table`: the platform decider for one kind, bound from its parts like a game's `game.py` binds its rules."""

from __future__ import annotations

from typing import Union

import msgspec

from domain.kernel import Game
from domain.table.codec import TableCodec, tagged
from domain.table.commands import TableCommand
from domain.table.events import TableEvent
from domain.table.evolve import TableFolding
from domain.table.options import OptionsRules
from domain.table.rules import TableRules
from domain.table.state import snapshot_type
from domain.table.view import TableReading


class Table(OptionsRules, TableRules, TableFolding, TableReading, TableCodec):
    """Lifecycle rules for games of one kind, wrapping that kind's `Game`."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.kind = game.kind
        self.event_union = Union[TableEvent, game.event_type]  # type: ignore[valid-type]
        self.command_union = Union[TableCommand, game.command_type]  # type: ignore[valid-type]
        self.options_type = game.options_type
        # decoders built once: msgspec.convert over a Union rebuilds its type info on every call
        self._events_json = msgspec.json.Decoder(self.event_union)
        self._commands_json = msgspec.json.Decoder(self.command_union)
        self._snapshot_json = msgspec.json.Decoder(snapshot_type(game.options_type, game.state_type,
                                                                      game.event_type))
        # each tag's own type: converting into one Struct type reuses the type info msgspec keeps on it
        self._event_types = tagged(self.event_union)
        self._command_types = tagged(self.command_union)
