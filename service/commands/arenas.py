"""Arenas in the service: an aggregate like a tournament, run by the one command loop (a `Competition`,
as tournaments are: `service.commands.competition` holds what the two share).

An arena's stream id is `arena-<uuid>` (the domain's id is the bare UUID) in the same event store as
the games; its format is `domain.tournament.competition.ARENA` (the arena folder of the tournament).
`ARENAS` is how hard the loop tries: one decision per arena at a time in this process, contention
left only between replicas, where the append's head check refuses a decision on a stale state.

What is an arena's own here: checking a new arena's kind, seat count, options and time control
against the catalogue; the time (`now_ms`) handed to the pairing and the close; the games of a
pairing, written already started with the ids, seeds and seats `PlayersPaired` lists, by the same
append as the pairing (`EventStore.append(games=...)`, one transaction; migration 009 links them in
`arena_games`, never in `tournament_games`); and berserk: the arena records `Berserked`, and the
player's clock in the game is halved by a `table.ClockSet` batch of the game (allowed only while the
game runs, before the player's own first command there, on a chess clock). A player's own move (join,
pause, leave, berserk) answers with that player's part of the arena (`move`), never the standings.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from datetime import timedelta
from typing import Any

import msgspec
import structlog

import domain.tournament.arena as A
from domain.clock import ClockSet
from domain.kernel import RuleViolation
from domain.table import Table, TableState
from domain.tournament.competition import ARENA
from service.commands.competition import Competition, named
from service.commands.exceptions import InvalidOptions
from service.commands.loop import Command, CommandLoop, Policy
from service.commands.pipeline import GAMES, now_ms
from service.commands.players import Viewer
from service.commands.publishing import Publisher
from service.commands.repository import GameRepository
from service.store.protocol import ConcurrencyError, EventStore, NewGame

log = structlog.get_logger("stela.arenas")
ARENAS = Policy(name="arena", attempts=16, serial=True, backoff=0.01)
FORBIDDEN = frozenset({"arena.not_platform", "arena.not_your_game", "arena.not_organiser"})
MAX_DELAY_S = 86_400  # an arena starts at most a day after its creation
LIVE_FOR = timedelta(days=3)  # every arena still running was created within this (it starts within a day, lasts one)
BERSERK_TRIES = 5  # decisions of a berserk's halving, each on the game as it then stands (`Arenas._halve_clock`)


class Arenas(Competition[A.ArenaState]):
    """Creates arenas and runs their commands (players', the platform's) through the one command loop."""

    format = ARENA
    policy = ARENAS
    forbidden = FORBIDDEN

    def __init__(self, store: EventStore, games: GameRepository, broker: Publisher, snapshot_every: int = 50) -> None:
        super().__init__(store, games, broker, snapshot_every)
        self.game_loop = CommandLoop(games, store, broker, GAMES)  # berserk's clock change in a game
        self._berserking: dict[tuple[str, str], asyncio.Lock] = {}

    async def create(self, viewer: Viewer, command: A.CreateArena, starts_in_seconds: int = 0) -> A.ArenaState:
        """Open an arena organised by the caller, starting `starts_in_seconds` from now."""
        command = named(command)
        player = viewer.require_player()
        table = self.games.table(command.kind)
        try:
            if not table.game.min_players <= command.seats <= table.game.max_players:
                raise RuleViolation("arena.bad_options", f"{command.kind} seats {table.game.min_players} to "
                                                         f"{table.game.max_players} players")
            table.parse_options(command.options, command.seats)
            if command.time_control:
                table.create(command.options, command.seats, b"check", time_control=command.time_control)
            if command.berserk and not command.time_control.get("total_seconds"):
                raise RuleViolation("arena.bad_options", "berserk needs a chess clock (time_control.total_seconds)")
            if not 0 <= starts_in_seconds <= MAX_DELAY_S:
                raise RuleViolation("arena.bad_options", f"an arena starts within {MAX_DELAY_S} seconds")
            arena_id = str(uuid.uuid4())
            command = msgspec.structs.replace(command, starts_at_ms=now_ms() + 1000 * starts_in_seconds)
            events = A.create(arena_id, player.id, command, os.urandom(32))
        except RuleViolation as exc:  # options are an open object in the document: a kind's refusal is a 422
            raise InvalidOptions(exc) from exc
        return await self.open(player, arena_id, command, events)

    def announced(self, state: A.ArenaState, games: int) -> None:
        log.debug("paired", arena_id=state.settings.arena_id, games=games)

    def paired_games(self, state: A.ArenaState, events: list[Any], started: dict[str, Any]) -> list[NewGame]:
        """Every game of the pairings among `events`, seated and started now, as new streams (`new_games`)."""
        s = state.settings
        return self.new_games(s, s.arena_id, "arena", [
            (game.game_id, game.seed, [(pid, state.players[pid].name) for pid in game.players], game.number)
            for e in events if isinstance(e, A.PlayersPaired) for game in e.games], started)

    async def move(self, viewer: Viewer, arena_id: str,
                   command: A.Join | A.Pause | A.Leave | A.Berserk) -> A.ArenaEntrantView:
        """Decide a player's own move as `act` does, and answer with the part of the arena of the player the
        recorded event names (`A.entrant_view`), not the whole arena: its standings carry every player with
        their sheet, so each join would cost as much as the field so far, and each berserk (one a game) too."""
        _, events, after = await self.decided(viewer, arena_id, command)
        player_id = next(e.player_id for e in events
                         if isinstance(e, (A.PlayerJoined, A.PlayerPaused, A.PlayerWithdrew, A.Berserked)))
        return A.entrant_view(after, player_id)

    async def berserk(self, viewer: Viewer, arena_id: str, game_id: str) -> A.ArenaEntrantView:
        """Halve the caller's clock in `game_id` for a bonus point on a win: checked by the arena first, the
        clock halved in the game, then `Berserked` recorded (one at a time per player and game here); the
        answer is the player's part of the arena (`move`)."""
        player = viewer.require_player()
        lock = self._berserking.setdefault((game_id, player.id), asyncio.Lock())
        async with lock:
            state = (await self.load(arena_id)).state
            with self.refusing():
                A.decide(state, player.id, A.Berserk(game_id=game_id))
            await self._halve_clock(game_id, player.id)
            done = await self.move(viewer, arena_id, A.Berserk(game_id=game_id))
        self._berserking.pop((game_id, player.id), None)
        return done

    async def _halve_clock(self, game_id: str, player_id: str) -> None:
        """The seat's clock halved in the game, once: refused after its first move or its own halving (any
        replica's), decided on the state read with the log up to it and appended only onto that version. A
        version conflict (an opponent's move or a timeout landed meanwhile, or another replica's berserk) is
        decided again on the new state, `BERSERK_TRIES` times at most: a concurrent berserk is then refused
        as too late, never a second halving, and a move of the opponent's no longer refuses the berserk."""
        for attempt in range(1, BERSERK_TRIES + 1):
            try:
                return await self._halve_clock_once(game_id, player_id)
            except ConcurrencyError:
                if attempt == BERSERK_TRIES:
                    raise

    async def _halve_clock_once(self, game_id: str, player_id: str) -> None:
        loaded = await self.games.load(game_id)
        stored = await self.store.read_stream(game_id, upto=loaded.state.version)
        clock_set = ClockSet.__struct_config__.tag

        def decide(table: Table, state: TableState) -> list[Any]:
            seat = table.seat_of(state, player_id)
            if state.status != "active" or seat is None:
                raise RuleViolation("arena.game_over", "the game has ended")
            if state.clock is None:
                raise RuleViolation("arena.no_berserk", "berserk needs the game's chess clock")
            if any(e.metadata.get("seat") == seat and (e.metadata.get("command") or e.type == clock_set)
                   for e in stored):
                raise RuleViolation("arena.berserk_too_late", "berserk once, before your first move in the game")
            return [halved(state, seat, now_ms())]

        meta = Command(stream_id=game_id, decide=decide, actor=player_id, expected=loaded.state.version,
                       describe=lambda m, before, after: msgspec.structs.replace(
                           m, seat=before.table.seat_of(before.state, player_id), to_act=before.table.to_act(after)))
        await self.game_loop.run(meta, loaded)

    async def recent(self, limit: int) -> list[A.ArenaState]:
        """The newest arenas, newest first (arenas last a day at most: no read model needed)."""
        return [(await self.repository.load(s)).state for s in await self.store.newest_streams(ARENA.family, limit)]

    async def live(self) -> list[str]:
        """The ids of arenas created in the last three days (every arena that may still be running)."""
        return [s.removeprefix(ARENA.family + "-") for s in await self.store.streams_since(ARENA.family, LIVE_FOR)]

    async def owners(self, game_ids: list[str]) -> dict[str, str]:
        """The arena of each of `game_ids` that belongs to one."""
        return await self.store.arenas_of(game_ids)

    async def own_moves(self, game_id: str, seats: int) -> list[int]:
        """How many moves each of the game's `seats` made itself: its own game commands, as the log's metadata
        records them (a platform command, such as a timeout played for it or a resignation, is none)."""
        moves = [0] * seats
        for event in await self.store.read_stream(game_id):
            seat, command = event.metadata.get("seat"), event.metadata.get("command")
            if command and seat is not None and 0 <= seat < seats and not str(command.get("type", "")).startswith("table."):
                moves[seat] += 1
        return moves


def halved(state: TableState, seat: int, at_ms: int) -> ClockSet:
    """The clock with `seat`'s time left halved (its deadline moved with it when its time is running)."""
    clock = state.clock
    assert clock is not None
    remaining = list(clock.remaining_ms)
    deadlines = list(clock.deadlines_ms)
    remaining[seat] //= 2  # time already spent counts when the seat moves, as always (domain.clock)
    if clock.since_ms[seat] is not None:
        deadlines[seat] = clock.since_ms[seat] + remaining[seat]  # type: ignore[operator]
    return ClockSet(at_ms=at_ms, remaining_ms=remaining, since_ms=list(clock.since_ms), deadlines_ms=deadlines,
                    timeouts=list(clock.timeouts))
