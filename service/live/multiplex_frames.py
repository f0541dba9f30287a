"""The multiplexed stream's frames and its SSE ids (the protocol is docs/streams.md).

Every frame is a default `message` event whose data is one of the structs below (tagged by `type`),
or a personal notice (`PersonalFrame`: the personal stream's `Notice`, plus the seat's legal
commands when asked for). The SSE `id` holds every position of the connection: one per game of
`games`, in order (a version, or `_` before the game's snapshot), then `p<cursor>` when the personal
notices are followed, joined by `.`: `13.4._.p1764215000123`.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import msgspec

from service.commands.exceptions import BadLastEventId, InvalidRequest
from service.commands.views import GameOut, Status
from service.commands.visibility import WireEvent
from service.live.personal_frames import Notice

MAX_GAMES_DEFAULT = 32
ID_MAX = 1024
NOT_YET = "_"
EndReason = Literal["closing", "revoked", "lagging", "error"]
_GAME_ID = re.compile(r"^[^\x00,:]{1,64}$")


class SnapshotFrame(msgspec.Struct, frozen=True, kw_only=True, tag="snapshot", tag_field="type"):
    """A game as getGame shows it to the viewer: first, for a game without a resume position."""

    game_id: str
    game: GameOut


class EventFrame(msgspec.Struct, frozen=True, kw_only=True, tag="event", tag_field="type"):
    """One event of a game as the viewer may see it (the game stream's event data)."""

    game_id: str
    event: WireEvent


class TurnFrame(msgspec.Struct, frozen=True, kw_only=True, tag="turn", tag_field="type"):
    """Who must act in a game at `version` (after its catch-up and after each batch of its events);
    `commands`: the viewer's seat's legal commands then, with `legal=true` when it is its turn; `view`:
    the viewer's view of the game then (as getGame's `view`), with `legal=true`."""

    game_id: str
    version: int
    status: Status
    to_act: list[int]
    your_seat: int | None
    your_turn: bool
    commands: list[dict[str, Any]] | msgspec.UnsetType = msgspec.UNSET
    view: Any | msgspec.UnsetType = msgspec.UNSET


class ReadyFrame(msgspec.Struct, frozen=True, kw_only=True, tag="ready", tag_field="type"):
    """Every game has caught up (and the personal notices announced): live from here on."""

    games: dict[str, int]
    personal: int | None


class EndFrame(msgspec.Struct, frozen=True, kw_only=True, tag="end", tag_field="type"):
    """The server closes the stream now (no `id`); see docs/streams.md for each reason."""

    reason: EndReason


class PersonalFrame(Notice, frozen=True, kw_only=True, omit_defaults=True):
    """A personal notice (`game.state`, `game.started`, `game.your_turn`, `game.ended`); with
    `legal=true` a notice with `your_turn` carries the seat's legal commands at `version`."""

    commands: list[dict[str, Any]] | msgspec.UnsetType = msgspec.UNSET


Frame = SnapshotFrame | EventFrame | TurnFrame | ReadyFrame | EndFrame | PersonalFrame
GAME_FRAMES = (SnapshotFrame, EventFrame, TurnFrame, ReadyFrame, EndFrame)


def position_id(positions: list[int | None], personal: int | None) -> str:
    """The SSE id of `positions` (one per game) and the personal cursor (None: not followed)."""
    parts = [NOT_YET if p is None else str(p) for p in positions]
    if personal is not None:
        parts.append(f"p{personal}")
    return ".".join(parts)


def parse_id(text: str, games: int, personal: bool) -> tuple[list[int | None], int | None]:
    """The positions an SSE id of this stream holds; BadLastEventId when it does not fit the stream
    (`games` positions, and a `p` element exactly when `personal`)."""
    parts = text.split(".") if text else []
    cursor: int | None = None
    if personal:
        if not parts or not parts[-1].startswith("p"):
            raise BadLastEventId("Last-Event-ID must end with the personal cursor (p<cursor>)")
        cursor = _natural(parts.pop()[1:], BadLastEventId, "Last-Event-ID has a bad personal cursor")
    if len(parts) != games:
        raise BadLastEventId(f"Last-Event-ID must hold {games} game positions, one per game of `games`")
    positions = [None if p == NOT_YET else _natural(p, BadLastEventId, "Last-Event-ID has a bad game position")
                 for p in parts]
    return positions, cursor


def parse_games(text: str | None, most: int, personal: bool) -> list[str]:
    """The game ids of `games=` (comma-separated); InvalidRequest when malformed, too many or repeated."""
    games = [g for g in (text or "").split(",")] if text else []
    if not games and not personal:
        raise InvalidRequest("name at least one game in `games`, or ask for the personal notices (personal=true)")
    if len(games) > most:
        raise InvalidRequest(f"at most {most} games per stream")
    for game_id in games:
        if not _GAME_ID.match(game_id):
            raise InvalidRequest(f"`games` holds a malformed game id: {game_id[:64]!r}")
    if len(set(games)) != len(games):
        raise InvalidRequest("`games` names a game twice")
    return games


def parse_after(text: str | None, games: list[str]) -> list[int | None]:
    """The explicit positions of `after=<game id>:<version>,...` (None where none is given)."""
    positions: list[int | None] = [None] * len(games)
    index = {game_id: i for i, game_id in enumerate(games)}
    for part in (text or "").split(",") if text else []:
        game_id, sep, version = part.rpartition(":")
        if not sep or game_id not in index:
            raise InvalidRequest(f"`after` must be <game id>:<version> for games of `games`, not {part[:80]!r}")
        positions[index[game_id]] = _natural(version, InvalidRequest, "`after` holds a bad version")
    return positions


def _natural(text: str, error: type[Exception], message: str) -> int:
    if not text.isdigit() or len(text) > 18:
        raise error(message)
    return int(text)
