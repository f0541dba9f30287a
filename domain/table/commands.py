"""The platform's own command (`table.Resign`); a game's commands are the kind's."""

from __future__ import annotations

import msgspec


class Resign(msgspec.Struct, frozen=True, kw_only=True, tag="table.Resign", tag_field="type",
             forbid_unknown_fields=True):
    """Platform command: the seat gives up the running game (always allowed to a seated player)."""


TableCommand = Resign
