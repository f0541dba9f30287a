"""Bots on request (docs/accounts.md): an organiser adds bots to a tournament or an arena; bot workers lease
the bots they play (admin token) and say when a bot is done. Bots in a game come with `createGame`'s `bots`."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Controller, Request, post
from litestar.di import NamedDependency
from litestar.params import JSONBody, PathParameter
from msgspec import Meta

import domain.tournament as T
import domain.tournament.arena as A
from service.commands.accounts_bots import BotSpec, Bots, Lease
from service.commands.exceptions import Forbidden, Unauthorized
from service.commands.players import Viewer
from service.edge.dependencies import viewer_after
from service.edge.errors import responses
from service.edge.routes.tournaments import ARENA_RESPONSES, ArenaId
from service.edge.schemas import NO_NUL, StrictBody
from service.ops.subjects import issued

TournamentId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="tournament id")]
BotId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="bot id (its player id)")]


class TournamentBots(BotSpec, kw_only=True, frozen=True, forbid_unknown_fields=True):
    count: Annotated[int, Meta(ge=1, le=64, description="how many bots to register", examples=[3])] = 1


class LeaseRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    worker: Annotated[str, Meta(min_length=1, max_length=128, pattern=NO_NUL, description="the worker's stable name")]
    have: Annotated[list[str], Meta(max_length=1000, description="bots the worker holds a token for already")] = []
    lease_seconds: Annotated[float, Meta(ge=5, le=600)] = 30.0
    max: Annotated[int, Meta(ge=1, le=1000, description="at most this many bots")] = 50


def require_admin(viewer: Viewer) -> None:
    if viewer.admin:
        return
    if viewer.player is None:
        raise Unauthorized("a bot worker sends the admin token")
    raise Forbidden("only a bot worker (the admin token) may do this")


class BotController(Controller):
    path = "/v1"
    tags = ["bots"]
    dependencies = viewer_after("bots")

    @post("/tournaments/{tournament_id:str}/bots", dto=StrictBody[TournamentBots], return_dto=None,
          operation_id="addTournamentBots", status_code=200,
          summary="Register bots in a tournament (organiser)", security=[{"bearer": []}],
          responses=responses(400, 401, 403, 404, 409),
          description="Each bot is a new player, registered by the organiser like anyone it registers; a bot "
                      "worker plays its games through the API.")
    async def tournament_bots(self, viewer: NamedDependency[Viewer],
                              bots: NamedDependency[Bots], tournament_id: TournamentId,
                              data: JSONBody[TournamentBots]) -> T.TournamentView:
        viewer.require_player()
        spec = BotSpec(strategy=data.strategy, strength=data.strength)
        return T.view(await bots.enter(viewer, tournament_id, spec, data.count))

    @post("/arenas/{arena_id:str}/bots", dto=StrictBody[TournamentBots], return_dto=None,
          operation_id="addArenaBots", status_code=200,
          summary="Enter bots in an arena (organiser)", security=[{"bearer": []}],
          responses={**ARENA_RESPONSES, **responses(400, 401, 403, 404, 409)},
          description="The arena's organiser (its creator) enters `count` bots, for example "
                      "`{\"count\": 3, \"strategy\": \"greedy\", \"strength\": 4}`: each a new player, entered "
                      "by the arena's own rule (`arena.Join` for another player, recorded with `by`, so `stela verify` "
                      "re-derives it) and paired like anyone; a bot worker plays every game the arena pairs it "
                      "into until the arena ends. Anyone else is refused (403 `arena.not_organiser`) before any "
                      "bot is made, as is a closed arena (409 `arena.closed`); an unknown arena is a 404.")
    async def arena_bots(self, viewer: NamedDependency[Viewer], bots: NamedDependency[Bots],
                         arena_id: ArenaId, data: JSONBody[TournamentBots]) -> A.ArenaView:
        viewer.require_player()
        spec = BotSpec(strategy=data.strategy, strength=data.strength)
        return A.view(await bots.enter_arena(viewer, arena_id, spec, data.count))

    @post("/bots/leases", dto=StrictBody[LeaseRequest], return_dto=None,
          operation_id="leaseBots", status_code=200, summary="Lease bots to play (bot workers)",
          security=[{"bearer": []}], responses=responses(400, 401, 403),
          description="For bot workers (`stela bot-worker`, `stela serve`'s own), with the admin token: the "
                      "worker's own bots and free ones that have something to play (a bot of a game with free "
                      "seats waits unleased until the game is full or under way), those whose game or tournament "
                      "moved last first, at most `max`, leased for `lease_seconds` (ask again well before it "
                      "ends). A bot the worker holds no token for comes with a fresh one; any older token of the "
                      "bot stops working.")
    async def lease(self, request: Request, viewer: NamedDependency[Viewer], bots: NamedDependency[Bots],
                    data: JSONBody[LeaseRequest]) -> list[Lease]:
        require_admin(viewer)
        leases = await bots.lease(data.worker, data.have, data.lease_seconds, data.max)
        for lease in leases:
            if lease.token is not None:  # every replica's budgets know the bot's new token
                issued(request.scope, lease.token, lease.player_id)
        return leases

    @post("/bots/{bot_id:str}/done", operation_id="finishBot", status_code=204,
          summary="A bot's game or tournament is over (bot workers)", security=[{"bearer": []}],
          responses=responses(400, 401, 403, 404))
    async def done(self, request: Request, viewer: NamedDependency[Viewer], bots: NamedDependency[Bots],
                   bot_id: BotId) -> None:
        require_admin(viewer)
        await bots.finish(bot_id)
