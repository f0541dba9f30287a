"""What leaves the arena domain: its public view (live standings), one player's own part of it (what a
player's join, pause, leave or berserk answers), redacted events and the wire codec.

Everything about an arena is public except its secrets, the arena seed (`ArenaCreated.seed`) and
the game seeds (`ArenaGame.seed`), both stripped by `redact` until the arena has ended. `actions`
says what a player may do now, by asking `decide` itself, so it never offers what would be refused.
"""

from __future__ import annotations

from typing import Annotated, Optional

import msgspec
from msgspec import Meta

from domain.tournament.codec import Codec, Settings, event_data, event_type, without_seeds
from domain.tournament.arena.commands import ArenaCommand, Berserk, Join, Leave, Pause
from domain.tournament.arena.events import RENAMED, ArenaEvent
from domain.tournament.arena.rules import decide, final_order
from domain.tournament.arena.state import ArenaState, Presence, Status
from domain.kernel import RuleViolation


class ArenaStanding(msgspec.Struct, frozen=True, kw_only=True):
    rank: int
    player_id: str
    name: str
    rating: int
    points: int
    games: int
    wins: int
    streak: int
    fire: bool
    berserks: int
    presence: Presence
    playing: Optional[str]
    sheet: list[int]


class ArenaView(Settings, frozen=True, kw_only=True):
    """The public picture of an arena: settings, times, and the live standings (best first)."""

    arena_id: str
    berserk: bool
    starts_at_ms: int
    ends_at_ms: int
    status: Status
    players: int
    games: int
    running: int
    standings: list[ArenaStanding]
    version: int
    berserk_moves: int = 0  # own moves a berserk needs in a game before its bonus counts


class ArenaEntrantView(msgspec.Struct, frozen=True, kw_only=True):
    """One player's part of an arena, as that player's join, pause, leave or berserk answers it: their own
    standing without the rank (ranking reads every player) and the arena's counters, never the other
    players, so the answer's size follows the player's own games, not the field (the whole arena is
    getArena's, or its stream's from `version`). Named apart from the tournament's `EntrantView`: the SDKs
    name their classes after the schemas."""

    arena_id: Annotated[str, Meta(description="the arena")]
    player_id: Annotated[str, Meta(description="whose part this is: the player who joined, paused, left or berserked")]
    name: Annotated[str, Meta(description="the display name the player joined under (their latest join's)")]
    rating: Annotated[int, Meta(description="the rating the player joined with (their latest join's)")]
    points: Annotated[int, Meta(description="the arena points the player has scored")]
    games: Annotated[int, Meta(description="how many of the player's games have scored (aborted ones do not count)")]
    wins: Annotated[int, Meta(description="how many of them the player won")]
    streak: Annotated[int, Meta(description="the player's current run of wins")]
    fire: Annotated[bool, Meta(description=(
        "on fire: a streak of two wins or more, so the player's next game scores double"))]
    berserks: Annotated[int, Meta(description="how many times the player has berserked")]
    presence: Annotated[Presence, Meta(description=(
        "`active` (paired whenever free), `paused` (not paired until they join again) or `left` (for good)"))]
    playing: Annotated[Optional[str], Meta(description=(
        "the game the player is in now (a paused or departed player's game is still played out), else null"))]
    sheet: Annotated[list[int], Meta(description="the points of each of the player's scored games, oldest first")]
    status: Annotated[Status, Meta(description="the arena's status: `open`, `closing` or `finished`")]
    players: Annotated[int, Meta(description="how many players have joined the arena (those who left included)")]
    version: Annotated[int, Meta(description=(
        "the arena's version after this command: its stream from here is `Last-Event-ID: <version>`"))]


def standings(state: ArenaState) -> list[ArenaStanding]:
    """Every player, best first (the final order's rule); equal points and wins share a rank."""
    out: list[ArenaStanding] = []
    previous: Optional[tuple[int, int]] = None
    for i, pid in enumerate(state.final or final_order(state)):
        p = state.players[pid]
        key = (p.points, p.wins)
        rank = out[-1].rank if previous == key and out else i + 1
        previous = key
        out.append(ArenaStanding(rank=rank, player_id=pid, name=p.name, rating=p.rating, points=p.points, games=p.games,
                            wins=p.wins, streak=p.streak, fire=p.fire, berserks=p.berserks, presence=p.presence,
                            playing=p.playing, sheet=list(p.sheet)))
    return out


def view(state: ArenaState) -> ArenaView:
    """The arena as anyone may see it (the seed only once revealed)."""
    s = state.settings
    return ArenaView(arena_id=s.arena_id, organiser=s.organiser, name=s.name, kind=s.kind, seats=s.seats,
                     options=s.options, time_control=s.time_control, berserk=s.berserk,
                     starts_at_ms=s.starts_at_ms, ends_at_ms=s.ends_at_ms, status=state.status,
                     players=len(state.players), games=len(state.games), running=state.running,
                     standings=standings(state), seed_commitment=s.seed_commitment, version=state.version,
                     seed=state.seed if state.revealed else None, berserk_moves=s.berserk_moves)


def entrant_view(state: ArenaState, player_id: str) -> ArenaEntrantView:
    """`player_id`'s part of the arena in `state` (a player who joined once stays in it, left or not)."""
    p = state.players[player_id]
    return ArenaEntrantView(
        arena_id=state.settings.arena_id, player_id=player_id, name=p.name, rating=p.rating, points=p.points,
        games=p.games, wins=p.wins, streak=p.streak, fire=p.fire, berserks=p.berserks, presence=p.presence,
        playing=p.playing, sheet=list(p.sheet), status=state.status, players=len(state.players),
        version=state.version)


def actions(state: ArenaState, player_id: str) -> list[str]:
    """What `player_id` may do now ("join", "pause", "leave", "berserk:<game id>"), as `decide` answers."""
    offered: list[tuple[str, ArenaCommand]] = [("join", Join(name="")), ("pause", Pause()), ("leave", Leave())]
    playing = state.players[player_id].playing if player_id in state.players else None
    if playing is not None:
        offered.append((f"berserk:{playing}", Berserk(game_id=playing)))
    allowed = []
    for name, command in offered:
        try:
            decide(state, player_id, command)
        except RuleViolation:
            continue
        allowed.append(name)
    return allowed


def redact(event: ArenaEvent, public: bool) -> ArenaEvent:
    """`event` as readers may see it; `public` (the arena has ended) shows everything."""
    return event if public else without_seeds(event)  # type: ignore[return-value]


decode_event = Codec(ArenaEvent, RENAMED).decode_event
