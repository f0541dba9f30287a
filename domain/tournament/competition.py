"""One competition model: Swiss, round robin, single elimination (knockout), duplicate and arena are
formats of one competition, read, decided, shown and audited through this one interface.

A competition is a stream of events of one tagged union (`Event`), opened by an `Opened` creation
that fixes its format for good. Formats come in two families behind the one interface (`Format`):

- **rounds** (`domain.tournament`): Swiss, round robin and single elimination,
  any of them `duplicate` (every table of a round plays one deal); pairing by round (`pairing`,
  `arrange`), rank points and tie-breaks (`standings`);
- **arena** (`domain.tournament.arena`, lichess's arena as a folder of its tournament):
  continuous pairing of whoever is free (`arena.pairing`), points with streaks and berserk
  (`arena.scoring`).

Everything else is the competition's, whatever its format: the creation's settings and the seed's
commitment (`codec.Opened`), the facts every format writes and folds (`facts`: a pause, a withdrawal, the
final order, the seed's reveal, tagged `tournament.*`), the wire codec (`codec`), the audit's walk
(`audit`), and these entry points: `fold`, `evolve`, `decide`, `view`, `shown`, `verify`, `finished`,
`format_of`. A format's own facts keep its family's tags (`tournament.RoundPaired`, `arena.PlayersPaired`).
A log written before the formats were one model folds and verifies unchanged: its bytes are never
rewritten, and the four arena tags of shared facts it may hold (`arena.PlayerLeft`, ...) are read as the
shared classes (`facts.RENAMED`), so readers see one set of events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional, Union

import msgspec

from domain.kernel import fold as kernel_fold
from domain.tournament import arena as A
from domain.tournament.audit import AuditReport
from domain.tournament.codec import Codec, Opened, event_data, event_type
from domain.tournament.events import TournamentCreated, TournamentEvent
from domain.tournament.facts import RENAMED
from domain.tournament.evolve import evolve as evolve_rounds
from domain.tournament.rules import decide as decide_rounds
from domain.tournament.state import TournamentState, rng_for
from domain.tournament.verify import verify as verify_rounds
from domain.tournament.view import shown as shown_rounds, view as view_rounds

Event = Union[TournamentEvent, A.ArenaEvent]
State = Union[TournamentState, A.ArenaState]


class Format(msgspec.Struct, frozen=True, kw_only=True):
    """A family of formats behind the one interface: how its state folds, decides, shows and is audited.

    `family` is its own event tags' prefix and its streams' (`<family>-<uuid>`); `decide(state, actor,
    command, admin)` the events a command causes (actor None: the platform); `shown(state, event)` an
    event as any reader may see it now; `finished(state)` whether it has ended (its seed revealed).
    """

    family: str
    created: type
    state: type
    evolve: Callable[[Any, Any], Any]
    decide: Callable[[Any, Optional[str], Any, bool], list[Any]]
    view: Callable[[Any], Any]
    shown: Callable[[Any, Any], Any]
    verify: Callable[[list[Any]], AuditReport]
    finished: Callable[[Any], bool]


ROUNDS = Format(
    family="tournament", created=TournamentCreated, state=TournamentState, evolve=evolve_rounds,
    decide=lambda state, actor, command, admin: decide_rounds(state, actor, command, rng_for(state), admin=admin),
    view=view_rounds, shown=shown_rounds, verify=verify_rounds, finished=lambda state: state.status == "finished")
ARENA = Format(
    family="arena", created=A.ArenaCreated, state=A.ArenaState, evolve=A.evolve,
    decide=lambda state, actor, command, admin: A.decide(state, actor, command, admin=admin),
    view=A.view, shown=lambda state, event: A.redact(event, state.finished), verify=A.verify,
    finished=lambda state: state.finished)
FORMATS: dict[str, Format] = {f.family: f for f in (ROUNDS, ARENA)}

decode_event = Codec(Event, RENAMED).decode_event
__all__ = ["ARENA", "FORMATS", "ROUNDS", "Event", "Format", "Opened", "State", "decide", "decode_event", "event_data",
           "event_type", "evolve", "finished", "fold", "format_name", "format_of", "shown", "verify", "view"]


def format_of(item: Any) -> Format:
    """The family of a competition's state, of its creation, or of one of its format's own events (by tag; a
    shared fact, tagged `tournament.*`, names no format)."""
    for f in FORMATS.values():
        if isinstance(item, (f.state, f.created)):
            return f
    family = event_type(item).split(".")[0]
    if family not in FORMATS:
        raise ValueError(f"{family!r} is no competition format")
    return FORMATS[family]


def format_name(state: State) -> str:
    """The format as the organiser chose it: swiss, round_robin, single_elimination or arena."""
    return "arena" if isinstance(state, A.ArenaState) else state.settings.format


def evolve(state: Optional[State], event: Event) -> State:
    """`state` after `event` (None before the creation), as the competition's format folds it."""
    return format_of(state if state is not None else event).evolve(state, event)


def fold(events: list[Event], state: Optional[State] = None) -> State:
    """The state after `events` (from `state`, default the empty stream)."""
    return kernel_fold(evolve, state, events)


def decide(state: State, actor: Optional[str], command: Any, admin: bool = False) -> list[Event]:
    """The events `command` from `actor` (None: the platform) causes, or `RuleViolation`."""
    return format_of(state).decide(state, actor, command, admin)


def view(state: State) -> Any:
    """The competition as anyone may see it (its format's view)."""
    return format_of(state).view(state)


def shown(state: State, event: Event) -> Event:
    """`event` as any reader may see it in `state`: seeds until the end, a sealed deal's results until it opens."""
    return format_of(state).shown(state, event)


def finished(state: State) -> bool:
    """Has the competition ended (its final order recorded, its seed revealed)?"""
    return format_of(state).finished(state)


def verify(events: list[Event]) -> AuditReport:
    """Every problem found in a competition's whole log (`AuditReport.ok`: it was run as recorded)."""
    if not events:
        return AuditReport(ok=False, problems=["the log is empty"])
    return format_of(events[0]).verify(events)
