"""Tournaments in the service: an aggregate like a game, run by the one command loop.

A tournament's stream id is `tournament-<uuid>` (the domain's id is the bare UUID) in the same event
store as the games. Its decider is `domain.tournament`, seen by the repository and the command loop
through `TournamentCodec`; `TOURNAMENTS` is how hard the loop tries: one decision per tournament at a
time in this process (a thousand registrations would otherwise keep refusing each other), so
contention is left only between replicas, where the append's head check refuses a decision on a
stale state, which is then reloaded and decided again.

What is a tournament's own here: checking a new tournament's kind and options against the catalogue,
the refusals that are 403s, and the one extra effect of a decision that pairs a round: every game of
the round is written already started, with the ids, seeds and seats the `RoundPaired` event lists, by
the same append as the pairing (`EventStore.append(games=...)`, one transaction): a reader never sees
a round whose games do not exist yet, and a crash leaves neither half. The result runner
(`service.workers.results`) turns each finished game into the tournament's `RecordResult`.
"""

from __future__ import annotations

import csv
import io
import math
import os
import uuid
from typing import Any, Literal

import msgspec
import structlog

import domain.tournament as T
from domain.tournament.report import checked, report, report_rows
from service.commands.exceptions import (
    Forbidden, InvalidOptions, InvalidRequest, NotFound, Unauthorized, unknown_field,
)
from domain.kernel import RuleViolation
from service.commands.loop import Command, CommandLoop, Policy, fingerprint
from service.commands.pipeline import now_ms
from service.commands.players import Viewer
from service.commands.publishing import Publisher
from service.commands.repository import Codec, GameRepository, Loaded, Repository
from service.store.protocol import EventStore, Metadata, NewEvent, NewGame, StoredEvent, new_command_id

log = structlog.get_logger("stela.tournaments")
PREFIX = "tournament-"
KIND = "tournament"
FORBIDDEN = {"tournament.not_organiser", "tournament.not_platform"}
TOURNAMENTS = Policy(name="tournament", attempts=16, serial=True, backoff=0.01)
_STATE = msgspec.json.Decoder(T.TournamentState)


class TournamentNotFound(NotFound):
    pass


def stream_of(tournament_id: str) -> str:
    return PREFIX + tournament_id


class TournamentCodec:
    """`domain.tournament` as the repository and the command loop see a decider (a `Codec`)."""

    kind = KIND

    @staticmethod
    def fold(events: list[Any], state: T.TournamentState | None = None) -> T.TournamentState:
        return T.fold(events, state)

    decode_event = staticmethod(T.decode_event)
    event_type = staticmethod(T.event_type)
    event_data = staticmethod(T.event_data)

    @staticmethod
    def dump_state(state: T.TournamentState) -> bytes:
        return msgspec.json.encode(state)

    @staticmethod
    def load_state(data: bytes) -> T.TournamentState:
        return _STATE.decode(data)


CODEC: Codec[T.TournamentState] = TournamentCodec()


class TournamentRepository(Repository):
    """The tournaments: every `tournament-` stream has the tournament codec."""

    async def codec_of(self, stream_id: str) -> Codec | None:
        return CODEC  # a stream that does not exist has no events: `load` finds no state and refuses

    def not_found(self, stream_id: str) -> NotFound:
        return TournamentNotFound(f"no tournament with id {stream_id.removeprefix(PREFIX)!r}")


class Tournaments:
    """Create tournaments and run their commands through the command loop, writing each paired round's games."""

    def __init__(self, store: EventStore, games: GameRepository, broker: Publisher, snapshot_every: int = 50) -> None:
        self.store = store
        self.games = games
        self.broker = broker
        self.repository = TournamentRepository(store, snapshot_every)
        self.loop = CommandLoop(self.repository, store, broker, TOURNAMENTS)

    async def load(self, tournament_id: str) -> Loaded[T.TournamentState]:
        """The tournament's current state: the one held here plus the events after it."""
        return await self.repository.load(stream_of(tournament_id))

    async def create(self, viewer: Viewer, command: T.CreateTournament) -> T.TournamentState:
        """Open a tournament organised by the caller; kind, options and time control checked first."""
        player = viewer.require_player()
        table = self.games.table(command.kind)
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
        return (await self.loop.open(stream_of(tournament_id), CODEC, events, meta)).state

    async def act(self, viewer: Viewer | None, tournament_id: str, command: T.TournamentCommand,
                  key: str | None = None) -> T.TournamentState:
        """Decide `command` for the caller (None: the platform) and append it, with the games of any round
        it pairs; retried on a stale state. `key`: an idempotency key, as for game commands."""
        actor = viewer.player_id if viewer is not None else None
        admin = viewer.admin if viewer is not None else False
        if viewer is not None and actor is None and not admin:
            raise Unauthorized("a bearer token is required")

        def decide(_: Any, state: T.TournamentState) -> list[Any]:
            try:
                return T.decide(state, actor, command, T.rng_for(state), admin=admin)
            except RuleViolation as exc:
                if exc.code in FORBIDDEN:
                    raise Forbidden(exc.message) from exc
                raise

        started: dict[str, Any] = {}  # each new game's folded state, remembered once its round is written

        def games(state: T.TournamentState, events: list[Any]) -> list[NewGame]:
            return [g for e in events if isinstance(e, T.RoundPaired) for g in self.round_games(state, e, started)]

        body = msgspec.to_builtins(command)
        print_ = fingerprint("tournament", tournament_id, actor, body) if key else None
        ran = await self.loop.run(Command(stream_id=stream_of(tournament_id), decide=decide, actor=actor, body=body,
                                          key=key, fingerprint=print_, games=games))
        if ran.created:
            await self._announce(ran.loaded.state, ran.created, started)
        return ran.loaded.state

    async def _announce(self, state: T.TournamentState, created: dict[str, list[StoredEvent]],
                        started: dict[str, Any]) -> None:
        """The round's new games, held in the game repository and handed to the fan-out."""
        table = self.games.table(state.settings.kind)
        for game_id, stored in created.items():
            self.games.remember(game_id, Loaded(table, started[game_id], stored[-1].hash))
            await self.broker.publish(game_id, stored)
        log.info("round_created", tournament_id=state.settings.tournament_id, round=state.round, games=len(created))

    def round_games(self, state: T.TournamentState, paired: T.RoundPaired, started: dict[str, Any]) -> list[NewGame]:
        """Every game of the round, seated and started, as new streams; each game's state put in `started`."""
        s = state.settings
        table = self.games.table(s.kind)
        names = {pid: e.name for pid, e in state.entrants.items()}
        games = []
        for paired_table in paired.tables:
            created = table.create(s.options, len(paired_table.players), bytes.fromhex(paired_table.seed or ""),
                                   created_by=s.organiser, time_control=s.time_control or None)
            game = table.fold(created)
            batches = [(created, Metadata(actor=s.organiser, to_act=[]))]
            for seat, pid in enumerate(paired_table.players):
                joined = table.join(game, pid, names[pid], seat)
                game = table.fold(joined, game)
                batches.append((joined, Metadata(actor=pid, command_id=new_command_id(), to_act=[])))
            begun = table.start(game, None, now_ms())
            game = table.fold(begun, game)
            batches.append((begun, Metadata(actor=s.organiser, command_id=new_command_id(),
                                            to_act=table.to_act(game))))
            games.append(NewGame(game_id=paired_table.game_id, kind=s.kind, tournament_id=s.tournament_id,
                                 round=paired.round, batches=[
                ([NewEvent(table.event_type(e), table.event_data(e)) for e in evs], meta) for evs, meta in batches]))
            started[paired_table.game_id] = game
        return games

    async def register(self, viewer: Viewer, tournament_id: str, command: T.Register) -> T.TournamentState:
        """Register as `command` says; a player registering themselves for a tournament with a rating
        condition is registered with the platform's rating and rated games of the kind (`rating_of`)."""
        settings = (await self.load(tournament_id)).state.settings
        entry = settings.entry
        rated = entry is not None and (entry.min_rated_games or entry.rating_min is not None
                                       or entry.rating_max is not None)
        if rated and viewer.player_id is not None and command.player_id in (None, viewer.player_id):
            rating, games = await self.rating_of(settings.kind, viewer.player_id)
            command = msgspec.structs.replace(command, rating=rating, rated_games=games)
        return await self.act(viewer, tournament_id, command)

    async def rating_of(self, kind: str, player_id: str) -> tuple[int, int]:
        """The player's rating of `kind` on the leaderboard (its ordinal, rounded down; 0 before any rated
        game) and how many rated games it counts."""
        found = await self.store.rating(kind, player_id)
        return (math.floor(found[0]), found[1]) if found is not None else (0, 0)

    async def report(self, tournament_id: str) -> dict[str, Any]:
        """The tournament's report (`domain.tournament.report`) with, once it has ended, its whole public log
        (`log`, as getTournamentEvents shows it), so the report can be audited on its own (`verify_report`)."""
        state, stored = await self.events(tournament_id)
        document = msgspec.to_builtins(report(state))
        document["log"] = [redacted(state, e) for e in stored] if state.status == "finished" else None
        return document

    async def events(self, tournament_id: str, after: int = 0) -> tuple[T.TournamentState, list[StoredEvent]]:
        """The tournament and its stored events after version `after` (read them through `redacted`)."""
        loaded = await self.load(tournament_id)
        return loaded.state, await self.store.read_stream(stream_of(tournament_id), after=after)


def redacted(state: T.TournamentState, event: StoredEvent) -> dict[str, Any]:
    """A stored tournament event on the wire, its secrets stripped until the tournament has ended and a
    sealed duplicate deal's results until the deal is open."""
    shown = T.shown(state, T.decode_event(event.type, event.data))
    return {"version": event.version, "type": event.type, "data": T.event_data(shown), "at": event.at.isoformat()}


def report_csv(state: T.TournamentState, part: Literal["standings", "pairings"]) -> str:
    """`part` of the tournament's report as CSV (RFC 4180: CRLF line ends, a header line first)."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(report_rows(state, part))
    return out.getvalue()


def verify_report(document: dict[str, Any]) -> list[str]:
    """Problems with a tournament report (as getTournamentReport gives it once the tournament has ended):
    its log must verify, and its pairings, results and standings must be the ones the log gives."""
    log_ = document.get("log")
    if not isinstance(log_, list) or not log_:
        return ["the report carries no log (it is published with one once the tournament has ended)"]
    try:
        events = [T.decode_event(e["type"], e["data"]) for e in log_]
    except (KeyError, TypeError, msgspec.ValidationError) as exc:
        return [f"the report's log does not decode: {exc}"]
    return checked(document, events)


def verify_tournament(events: list[tuple[str, dict[str, Any]]]) -> T.VerifyReport:
    """Re-derive a finished tournament's pairings, draws and standings from its (type, data) events,
    as stored or as `GET /v1/tournaments/{id}/events` shows them after the end."""
    return T.verify([T.decode_event(type_, data) for type_, data in events])
