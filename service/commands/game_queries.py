"""A game's reads beyond its current view: its event page, its export, its board picture and its state at a
past version, each asked of the visibility rule first (`look`), as query functions over `GameQueries`.

`GameQueries` names what these reads use (the game repository, the sealed deals, the event store and the
answers kept per version), built once by the composition root; the routes call the functions with it. (A plain
class, not a dataclass: a route's argument, checked by the framework with msgspec, which would look into a
dataclass's field types.)
"""

from __future__ import annotations

import msgspec

from service.commands.exceptions import NoPicture
from service.commands.players import Viewer
from service.commands.repository import GameRepository, Loaded
from service.commands.views import GameOut, PerVersion, game_out
from service.commands.visibility import Seals, WireEvent, look, require_public, require_seat, visible, wire
from service.store.protocol import EventStore


class GameQueries:
    """What a game's reads use: the repository (cached and stored states), the sealed deals, the event store
    (the log itself) and the answers encoded once per version and seat."""

    __slots__ = ("repository", "seals", "store", "answers")

    def __init__(self, *, repository: GameRepository, seals: Seals, store: EventStore, answers: PerVersion) -> None:
        self.repository = repository
        self.seals = seals
        self.store = store
        self.answers = answers


class EventPage(msgspec.Struct, kw_only=True):
    version: int
    events: list[WireEvent]


async def current(queries: GameQueries, game_id: str, min_version: int | None = None) -> Loaded:
    """The game's current state: the cached one when this replica knows it is current (and at least
    `min_version`), else read from the store."""
    loaded = await queries.repository.current(game_id)
    if min_version is not None and loaded.state.version < min_version:
        loaded = await queries.repository.load(game_id)
    return loaded


async def event_page(queries: GameQueries, viewer: Viewer, game_id: str, after: int, limit: int,
                     as_seat: int | None) -> EventPage:
    """The events after version `after` (at most `limit`) as the viewer may see them, or, after the end, as
    seat `as_seat` received them during play."""
    loaded = await queries.repository.load(game_id)
    seen = await look(queries.seals, game_id, loaded.table, loaded.state, viewer)
    stored = await queries.store.read_stream(game_id, after=after, upto=after + limit)
    if as_seat is None:
        return EventPage(version=loaded.state.version, events=visible(loaded.table, stored, seen))
    require_seat(seen, loaded.state, as_seat)
    shown = [wire(loaded.table, e, as_seat, False, seen.sealed) for e in stored]
    return EventPage(version=loaded.state.version, events=[e for e in shown if e is not None])


async def export(queries: GameQueries, viewer: Viewer, game_id: str) -> bytes:
    """The whole stored log as NDJSON, every field of every event (once it is public to the viewer)."""
    loaded = await queries.repository.load(game_id)
    require_public(await look(queries.seals, game_id, loaded.table, loaded.state, viewer))
    stored = await queries.store.read_stream(game_id)
    return b"".join(msgspec.json.encode(e) + b"\n" for e in stored)


async def board_picture(queries: GameQueries, viewer: Viewer, game_id: str) -> str:
    """The board as SVG, drawn for the viewer's seat; NoPicture for a kind that draws none (or before setup)."""
    loaded = await queries.repository.load(game_id)
    seat = (await look(queries.seals, game_id, loaded.table, loaded.state, viewer)).seat
    draw = loaded.table.game.board_svg
    if draw is None or loaded.state.game is None:
        raise NoPicture("this game has no board picture (yet)")
    return draw(loaded.state.game, seat)


async def past_game(queries: GameQueries, viewer: Viewer, game_id: str, version: int, seat: int | None) -> GameOut:
    """The game at a past version: the viewer's own view, or after the end (or as the viewer's own seat) `seat`'s."""
    # the seal first: a non-seat of a sealed deal learns nothing, not even how many versions there are
    loaded = await queries.repository.load(game_id)
    seen = await look(queries.seals, game_id, loaded.table, loaded.state, viewer)
    now, past = await queries.repository.state_at(game_id, version)
    if seat is not None:
        require_seat(seen, now.state, seat)
        return game_out(game_id, now.table, past, viewer, seat=seat, as_seat=True)
    return game_out(game_id, now.table, past, viewer, seat=seen.seat, as_seat=True)
