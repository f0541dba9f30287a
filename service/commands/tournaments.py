"""Tournaments in the service: load, decide and append a tournament stream, create its rounds' games,
and turn each finished game into the tournament's `RecordResult`.

A tournament's stream id is `tournament-<uuid>` (the domain's id is the bare
UUID) in the same event store as the games. Each process keeps the folded state
of the tournaments it touched and decides one command per tournament at a time
(a lock per tournament), so contention is left only between replicas: the
append's head check refuses a decision on a stale state, which is then reloaded
and decided again. When a decision pairs a round, every game of the round is
written already started, with the ids, seeds and seats the `RoundPaired` event
lists, in the same transaction as the pairing (`service.store.bulk.create_games`):
a reader never sees a round whose games do not exist yet, and a crash leaves
neither half.

`record` turns a finished game's outcome into the tournament's `RecordResult`
(the result runner, `service.workers.results`, calls it once per ended game): a
repeat after a crash is refused by the decider (`tournament.result_already_recorded`)
and dropped. An aborted game counts as everyone level, so the round still ends.
"""

from __future__ import annotations

import asyncio
import os
import random
import uuid
from typing import Any

import msgspec
import structlog

import domain.tournament as T
from domain.kernel import Outcome, RuleViolation
from service.commands.exceptions import (
    Forbidden, InvalidOptions, InvalidRequest, NotFound, TooMuchContention, Unauthorized, unknown_field,
)
from service.commands.publishing import Publisher
from service.commands.pipeline import now_ms
from service.commands.players import Viewer
from service.commands.repository import GameRepository, Loaded
from service.store import bulk
from service.store.postgres import PostgresStore
from service.store.protocol import ConcurrencyError, Metadata, NewEvent, StoredEvent, new_command_id

log = structlog.get_logger("stela.tournaments")
PREFIX = "tournament-"
KIND = "tournament"
MAX_ATTEMPTS = 16
FORBIDDEN = {"tournament.not_organiser", "tournament.not_platform"}
# refusals of a RecordResult that no retry can change (the tournament ended or moved past the game's round)
UNRECORDABLE = {"tournament.not_running", "tournament.finished", "tournament.unknown_game", "tournament.bad_outcome"}


class TournamentNotFound(NotFound):
    pass


def stream_of(tournament_id: str) -> str:
    return PREFIX + tournament_id


class Held(msgspec.Struct, frozen=True):
    state: T.TournamentState
    head: str


class Tournaments:
    """Create tournaments, run their commands, and write each paired round's games."""

    def __init__(self, store: PostgresStore, repository: GameRepository, broker: Publisher) -> None:
        self.store = store
        self.pool = store.pool
        self.repository = repository
        self.broker = broker
        self._held: dict[str, Held] = {}
        self._locks: dict[str, asyncio.Lock] = {}  # one decision at a time per tournament in this process

    async def load(self, tournament_id: str) -> Held:
        """The tournament's current state: the one held here plus the events after it."""
        held = self._held.get(tournament_id)
        after = held.state.version if held else 0
        new = await self.store.read_stream(stream_of(tournament_id), after=after)
        if not new:
            if held is None:
                raise TournamentNotFound(f"no tournament with id {tournament_id!r}")
            return held
        events = [T.decode_event(e.type, e.data) for e in new]
        held = Held(T.fold(events, held.state if held else None), new[-1].hash)
        self._held[tournament_id] = held
        return held

    async def create(self, viewer: Viewer, command: T.CreateTournament) -> T.TournamentState:
        """Open a tournament organised by the caller; kind, options and time control checked first."""
        player = viewer.require_player()
        table = self.repository.table(command.kind)
        try:
            table.parse_options(command.options, command.seats)
            if command.time_control:
                table.create(command.options, command.seats, b"check", time_control=command.time_control)
        except RuleViolation as exc:
            raise InvalidRequest(exc.message) if unknown_field(exc) else InvalidOptions(exc) from exc
        command = msgspec.structs.replace(command, min_seats=min(command.seats, table.game.min_players))
        tournament_id = str(uuid.uuid4())
        try:
            events = T.create(tournament_id, player.id, command, os.urandom(32))
        except RuleViolation as exc:
            raise InvalidOptions(exc) from exc
        meta = Metadata(actor=player.id, command=msgspec.to_builtins(command))
        return (await self._append(tournament_id, None, events, meta)).state

    async def act(self, viewer: Viewer | None, tournament_id: str, command: T.TournamentCommand) -> T.TournamentState:
        """Decide `command` for the caller (None: the platform) and append it; retried on a stale state."""
        actor = viewer.player_id if viewer is not None else None
        admin = viewer.admin if viewer is not None else False
        if viewer is not None and actor is None and not admin:
            raise Unauthorized("a bearer token is required")
        async with self._locks.setdefault(tournament_id, asyncio.Lock()):
            return await self._act(actor, admin, tournament_id, command)

    async def _act(self, actor: str | None, admin: bool, tournament_id: str,
                   command: T.TournamentCommand) -> T.TournamentState:
        for attempt in range(MAX_ATTEMPTS):
            if attempt > 1:  # another replica keeps winning: let it finish
                await asyncio.sleep(random.uniform(0, 0.01 * attempt))
            # the state held here decides first (no query); a refusal or a clash is checked against the store
            cached = self._held.get(tournament_id) if attempt == 0 else None
            held = cached or await self.load(tournament_id)
            try:
                events = T.decide(held.state, actor, command, T.rng_for(held.state), admin=admin)
            except RuleViolation as exc:
                if cached is not None and (await self.load(tournament_id)).state.version != held.state.version:
                    continue
                if exc.code in FORBIDDEN:
                    raise Forbidden(exc.message) from exc
                raise
            meta = Metadata(actor=actor, command_id=new_command_id(), command=msgspec.to_builtins(command))
            try:
                held = await self._append(tournament_id, held, events, meta)
            except ConcurrencyError:
                continue
            return held.state
        raise TooMuchContention("the tournament changed too often while deciding; retry")

    async def _append(self, tournament_id: str, held: Held | None, events: list[Any], meta: Metadata) -> Held:
        """Append after `held` (None: a new stream); the state after it, now held here.

        A `RoundPaired` among `events` is written with every game of its round in one transaction."""
        new = [NewEvent(T.event_type(e), T.event_data(e)) for e in events]
        version = held.state.version if held else 0
        state = T.fold(events, held.state if held else None)
        paired = [e for e in events if isinstance(e, T.RoundPaired)]
        created: dict[str, tuple[Any, Any]] = {}
        prev_hash = held.head if held else None
        if not paired:
            result = await self.store.append(stream_of(tournament_id), version, new, meta, None, KIND,
                                             prev_hash=prev_hash)
        else:
            async with self.pool.acquire() as conn, conn.transaction():
                result = await self.store.append(stream_of(tournament_id), version, new, meta, None, KIND,
                                                  prev_hash=prev_hash, conn=conn)
                for event in paired:
                    games, states = self.round_games(state, event)
                    stored = await bulk.create_games(conn, state.settings.tournament_id, event.round, games)
                    created.update({g: (states[g], evs) for g, evs in stored.items()})
        await self.broker.publish(stream_of(tournament_id), result.events)
        after = Held(state, result.head or "")
        self._held[tournament_id] = after
        if created:
            table = self.repository.table(state.settings.kind)
            for game_id, (game, stored_events) in created.items():
                self.repository.remember(game_id, Loaded(table, game, stored_events[-1].hash))
                await self.broker.publish(game_id, stored_events)
            log.info("round_created", tournament_id=tournament_id, round=paired[-1].round, games=len(created))
        return after

    def round_games(self, state: T.TournamentState, paired: T.RoundPaired) -> tuple[list[bulk.NewGame], dict[str, Any]]:
        """Every game of the round, seated and started, as new streams; and each game's folded state."""
        s = state.settings
        table = self.repository.table(s.kind)
        names = {pid: e.name for pid, e in state.entrants.items()}
        games, states = [], {}
        for paired_table in paired.tables:
            created = table.create(s.options, len(paired_table.players), bytes.fromhex(paired_table.seed or ""),
                                   created_by=s.organiser, time_control=s.time_control or None)
            game = table.fold(created)
            batches = [(created, Metadata(actor=s.organiser, to_act=[]))]
            for seat, pid in enumerate(paired_table.players):
                joined = table.join(game, pid, names[pid], seat)
                game = table.fold(joined, game)
                batches.append((joined, Metadata(actor=pid, command_id=new_command_id(), to_act=[])))
            started = table.start(game, None, now_ms())
            game = table.fold(started, game)
            batches.append((started, Metadata(actor=s.organiser, command_id=new_command_id(),
                                              to_act=table.to_act(game))))
            games.append(bulk.NewGame(game_id=paired_table.game_id, kind=s.kind, batches=[
                ([NewEvent(table.event_type(e), table.event_data(e)) for e in evs], meta) for evs, meta in batches]))
            states[paired_table.game_id] = game
        return games, states

    async def record(self, tournament_id: str, game_id: str, outcome: Outcome | None) -> bool:
        """The platform records a game's outcome (None: aborted, everyone level); False if already recorded."""
        if outcome is None:
            table = (await self.load(tournament_id)).state.table_of(game_id)
            seats = len(table.players) if table is not None else 0
            outcome = Outcome(scores=[0] * seats, ranks=[1] * seats, winners=[], details={"aborted": True})
        try:
            await self.act(None, tournament_id, T.RecordResult(game_id=game_id, outcome=outcome))
        except RuleViolation as exc:
            if exc.code == "tournament.result_already_recorded":
                return False
            if exc.code in UNRECORDABLE:  # it never can be: retrying would hold the runner on this event forever
                log.warning("result_dropped", tournament_id=tournament_id, game_id=game_id, code=exc.code,
                            reason=exc.message)
                return False
            raise
        return True

    async def events(self, tournament_id: str, after: int = 0) -> tuple[T.TournamentState, list[StoredEvent]]:
        """The tournament and its stored events after version `after` (read them through `redacted`)."""
        held = await self.load(tournament_id)
        return held.state, await self.store.read_stream(stream_of(tournament_id), after=after)


def redacted(state: T.TournamentState, event: StoredEvent) -> dict[str, Any]:
    """A stored tournament event on the wire, its secrets stripped until the tournament has ended."""
    shown = T.redact(T.decode_event(event.type, event.data), state.status == "finished")
    return {"version": event.version, "type": event.type, "data": T.event_data(shown), "at": event.at.isoformat()}


def verify_tournament(events: list[tuple[str, dict[str, Any]]]) -> T.VerifyReport:
    """Re-derive a finished tournament's pairings, draws and standings from its (type, data) events,
    as stored or as `GET /v1/tournaments/{id}/events` shows them after the end."""
    return T.verify([T.decode_event(type_, data) for type_, data in events])

