"""Tournaments in the service: an aggregate like a game, run by the one command loop (a `Competition`,
as arenas are: `service.commands.competition` holds what the two share).

A tournament's stream id is `tournament-<uuid>` (the domain's id is the bare UUID) in the same event
store as the games. Its decider is `domain.tournament`, seen by the repository and the command loop
through its format (`domain.tournament.competition.ROUNDS`); `TOURNAMENTS` is how hard the loop tries: one decision per tournament at a
time in this process (a thousand registrations would otherwise keep refusing each other), so
contention is left only between replicas, where the append's head check refuses a decision on a
stale state, which is then reloaded and decided again.

What is a tournament's own here: checking a new tournament's kind and options against the catalogue,
the refusals that are 403s, a registration's or withdrawal's answer (the player's entry, `enter`, not the
whole tournament), and the one extra effect of a decision that pairs a round: every game of
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
from domain.kernel import RuleViolation
from domain.tournament.competition import ROUNDS
from service.commands.competition import CODECS, Competition, named, redacted
from service.commands.exceptions import InvalidOptions, InvalidRequest, unknown_field
from service.commands.loop import Policy
from service.commands.players import Viewer
from service.store.protocol import NewGame

log = structlog.get_logger("stela.tournaments")
FORBIDDEN = frozenset({"tournament.not_organiser", "tournament.not_platform"})
# offloaded: the result that ends a round pairs the next one (a 1,000-player Swiss round takes a second or more)
TOURNAMENTS = Policy(name="tournament", attempts=16, serial=True, backoff=0.01, offload=True)


class Tournaments(Competition[T.TournamentState]):
    """Create tournaments and run their commands through the command loop, writing each paired round's games."""

    format = ROUNDS
    policy = TOURNAMENTS
    forbidden = FORBIDDEN

    async def create(self, viewer: Viewer, command: T.CreateTournament) -> T.TournamentState:
        """Open a tournament organised by the caller; kind, options and time control checked first."""
        command = named(command)
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
        return await self.open(player, tournament_id, command, events)

    def announced(self, state: T.TournamentState, games: int) -> None:
        log.info("round_created", tournament_id=state.settings.tournament_id, round=state.round, games=games)

    def paired_games(self, state: T.TournamentState, events: list[Any], started: dict[str, Any]) -> list[NewGame]:
        """Every game of the rounds paired among `events`, seated and started, as new streams (`new_games`); a
        table with a player who set playing windows gets them in its time control, per seat (`windowed`)."""
        s = state.settings
        names = {pid: e.name for pid, e in state.entrants.items()}
        return [game for paired in events if isinstance(paired, T.RoundPaired) for table in paired.tables
                for game in self.new_games(windowed(state, table.players), s.tournament_id, "tournament", [
                    (table.game_id, table.seed, [(pid, names[pid]) for pid in table.players], paired.round)],
                    started)]

    async def register(self, viewer: Viewer, tournament_id: str, command: T.Register) -> T.EntrantView:
        """Register as `command` says and answer with that player's entry (`enter`); a player registering
        themselves for a tournament with a rating condition is registered with the platform's rating and
        rated games of the kind (`rating_of`)."""
        settings = (await self.load(tournament_id)).state.settings
        entry = settings.entry
        rated = entry is not None and (entry.min_rated_games or entry.rating_min is not None
                                       or entry.rating_max is not None)
        if rated and viewer.player_id is not None and command.player_id in (None, viewer.player_id):
            rating, games = await self.rating_of(settings.kind, viewer.player_id)
            command = msgspec.structs.replace(command, rating=rating, rated_games=games)
        return await self.enter(viewer, tournament_id, command)

    async def withdraw(self, viewer: Viewer, tournament_id: str, command: T.Withdraw) -> T.EntrantView:
        """Withdraw as `command` says and answer with that player's entry (`enter`)."""
        return await self.enter(viewer, tournament_id, command)

    async def enter(self, viewer: Viewer, tournament_id: str,
                    command: T.Register | T.Withdraw) -> T.EntrantView:
        """Decide a registration or a withdrawal as `act` does, and answer with the entry of the player the
        recorded event names (`T.entrant_view`), not the whole tournament: each would carry the field so far,
        quadratic over a field's entries. The state before is the one the appended decision was made on
        (`decided`), so a withdrawal before the start, which deletes the entry, still answers with the
        player's name and rating."""
        before, events, after = await self.decided(viewer, tournament_id, command)
        player_id = next(e.player_id for e in events if isinstance(e, (T.PlayerRegistered, T.PlayerWithdrew)))
        return T.entrant_view(after, player_id, before)

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


def windowed(state: T.TournamentState, players: list[str]) -> Any:
    """The settings a table of `players` is created with: the tournament's, and when one of them set playing
    windows, its time control with every seat's windows in seat order (`domain.clock.TimeControl.windows`)."""
    s = state.settings
    seats = [[msgspec.to_builtins(w) for w in state.entrants[pid].windows] for pid in players]
    if not any(seats):
        return s
    return msgspec.structs.replace(s, time_control={**s.time_control, "windows": seats})


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


CODEC = CODECS[ROUNDS.family]  # the tournaments' codec, for the readers of their streams
__all__ = ["CODEC", "Tournaments", "redacted", "report_csv", "verify_report"]
