"""Bots on request: players the platform plays for whoever asked, in a game, a tournament or an arena.

A bot is an ordinary player (its own account, no password), seated in a game by the pipeline's
`join` like anyone, or registered in a tournament (an arena) by its organiser through the tournament's
own `Register` command (the arena's `Join` for another player). The service never plays it: a bot worker (`service.bots.runner`, an API client
like any other) leases bots through `lease` (the internal endpoint `POST /v1/bots/leases`, admin
token) and plays each with a token of the bot's own, so the bot obeys the same rules, clocks and
visibility as a person. A bot is leased to one worker at a time (the store's lease, `SKIP LOCKED`);
when another worker takes it over (the lease ran out) the bot gets a fresh token and the old one is
revoked, so a stalled worker that wakes up can no longer act for it. A worker that restarts under
the same name takes its bots back at once (`have` lists the bots it still holds a token for).
"""

from __future__ import annotations

import itertools
import secrets
import uuid
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

import domain.tournament as T
import domain.tournament.arena as A
from service.commands.accounts import Accounts
from service.commands.exceptions import InvalidRequest, NotFound
from service.commands.players import PLAY, READ, Viewer
from service.store.accounts import BotSeat
from service.store.protocol import EventStore, Player

STRATEGIES = ("random", "greedy")  # service.bots.strategies.make_strategy's names (a test holds them equal)
PENDING = "bot-to-be"  # the player id a bot's registration is checked with before its account exists
STRENGTHS = (1, 2, 3, 4, 5)
# a bot's name is its kind and one of these, different from the names already at its table or tournament
SHORT_NAMES = ("Ada", "Alf", "Bea", "Bix", "Cal", "Cleo", "Dex", "Dot", "Eli", "Emu", "Fay", "Fig", "Gus", "Gwen",
               "Hal", "Hux", "Ida", "Ivo", "Jax", "Juno", "Kai", "Kit", "Lou", "Lux", "Max", "Mo", "Ned", "Nia",
               "Oda", "Oz", "Pip", "Quin", "Rex", "Rue", "Sol", "Sky", "Tam", "Tux", "Uma", "Vic", "Wren", "Xia",
               "Yul", "Zed", "Zoe", "Ash", "Bo", "Kip")  # how often the strategy's choice is played rather than a random legal one: n/5


class BadBot(InvalidRequest):
    """A bot of an unknown strategy or strength, or more bots than free seats."""


class BotNotFound(NotFound):
    """No bot of that id."""


class BotSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    strategy: Annotated[Literal["random", "greedy"], Meta(description="greedy: the kind's heuristic")] = "greedy"
    strength: Annotated[int, Meta(ge=1, le=5, description="1 (mostly random moves) to 5 (always the strategy's)")] = 3


class Lease(msgspec.Struct, frozen=True, kw_only=True):
    """A bot leased to a worker, with a token to play it when the worker does not hold one already."""

    bot_id: str
    player_id: str
    name: str
    strategy: str
    strength: int
    game_id: str | None
    tournament_id: str | None
    lease_seconds: float
    arena_id: str | None = None
    token: str | None


def bot_name(spec: BotSpec, taken: set[str]) -> str:
    """`<Strategy> bot <short name>`, a name not in `taken` (numbered once every short name is)."""
    stem = f"{spec.strategy.capitalize()} bot"
    free = [short for short in SHORT_NAMES if f"{stem} {short}" not in taken]
    if free:
        return f"{stem} {secrets.choice(free)}"
    return next(name for n in itertools.count(2) if (name := f"{stem} {SHORT_NAMES[n % len(SHORT_NAMES)]} {n}")
                not in taken)


def check(spec: BotSpec) -> BotSpec:
    if spec.strategy not in STRATEGIES:
        raise BadBot(f"unknown bot strategy {spec.strategy!r}; known: {', '.join(STRATEGIES)}")
    if spec.strength not in STRENGTHS:
        raise BadBot(f"a bot's strength is one of {', '.join(map(str, STRENGTHS))}")
    return spec


class Bots:
    """Seats bots in games and tournaments, and leases them to the workers that play them."""

    def __init__(self, store: EventStore, accounts: Accounts, pipeline: Any, tournaments: Any,
                 arenas: Any = None) -> None:
        self.store, self.accounts, self.pipeline, self.tournaments = store, accounts, pipeline, tournaments
        self.arenas = arenas

    async def _bot(self, spec: BotSpec, taken: set[str], game_id: str | None = None,
                   tournament_id: str | None = None, arena_id: str | None = None) -> Player:
        name = bot_name(spec, taken)
        taken.add(name)
        player, _ = await self.accounts.players.register(name)
        await self.store.accounts().add_bot(BotSeat(id=player.id, player_id=player.id, strategy=spec.strategy,
                                                    strength=spec.strength, game_id=game_id,
                                                    tournament_id=tournament_id, arena_id=arena_id))
        return player

    def fits(self, specs: list[BotSpec], free: int) -> None:
        """BadBot unless every spec is valid and they fit in `free` seats (checked before the game exists)."""
        for spec in specs:
            check(spec)
        if len(specs) > free:
            raise BadBot(f"{len(specs)} bots for {free} free seat(s)")

    async def seat(self, game_id: str, specs: list[BotSpec]) -> Any:
        """Seat a bot for each spec in the open game; the pipeline's last outcome (None for no spec)."""
        done, taken = None, set()
        for spec in map(check, specs):
            bot = await self._bot(spec, taken, game_id=game_id)
            done = await self.pipeline.join(Viewer(player=bot), game_id, None)
        return done

    async def enter(self, organiser: Viewer, tournament_id: str, spec: BotSpec, count: int) -> Any:
        """Register `count` bots in the tournament, by its organiser (the tournament's own rule); its state."""
        state = (await self.tournaments.load(tournament_id)).state
        return await self._enter(organiser, self.tournaments, tournament_id, T.Register, spec, count,
                                 {entrant.name for entrant in state.entrants.values()}, tournament_id=tournament_id)

    async def enter_arena(self, organiser: Viewer, arena_id: str, spec: BotSpec, count: int) -> Any:
        """Enter `count` bots in the arena, by its organiser (the arena's own rule, `arena.Join`); its state."""
        state = (await self.arenas.load(arena_id)).state
        return await self._enter(organiser, self.arenas, arena_id, A.Join, spec, count,
                                 {player.name for player in state.players.values()}, arena_id=arena_id)

    async def _enter(self, organiser: Viewer, competition: Any, competition_id: str, command: Any, spec: BotSpec,
                     count: int, taken: set[str], **where: str) -> Any:
        check(spec)
        state = None
        for _ in range(count):
            # the competition's rule first, so a refused caller (or a full tournament) leaves no bot behind
            await competition.check(organiser, competition_id, command(name="bot", player_id=PENDING))
            bot = await self._bot(spec, taken, **where)
            state = await competition.act(organiser, competition_id, command(name=bot.name, player_id=bot.id))
        return state

    async def lease(self, worker: str, have: list[str], seconds: float, limit: int) -> list[Lease]:
        """Lease bots to `worker` (see the module docstring); a fresh token for each it holds none for."""
        out = []
        for bot, _ in await self.store.accounts().lease_bots(worker, seconds, limit):
            token = None
            if bot.id not in have:
                if bot.token_id is not None:
                    await self.accounts.revoke_token(await self._player(bot), bot.token_id, missing_ok=True)
                credential, token = await self.accounts.issue(await self._player(bot), "personal", "bot worker",
                                                              [READ, PLAY])
                await self.store.accounts().set_bot_token(bot.id, credential.id)
            player = await self._player(bot)
            out.append(Lease(bot_id=bot.id, player_id=bot.player_id, name=player.name, strategy=bot.strategy,
                             strength=bot.strength, game_id=bot.game_id, tournament_id=bot.tournament_id,
                             arena_id=bot.arena_id, lease_seconds=seconds, token=token))
        return out

    async def finish(self, bot_id: str) -> None:
        """The bot's game or tournament is over: it is leased no more and its token stops working."""
        bot = await self.store.accounts().finish_bot(bot_id)
        if bot is None:
            raise BotNotFound(f"no bot with id {bot_id!r}")
        if bot.token_id is not None:
            await self.accounts.revoke_token(await self._player(bot), bot.token_id, missing_ok=True)

    async def _player(self, bot: BotSeat) -> Player:
        return await self.accounts.players.get(bot.player_id)
