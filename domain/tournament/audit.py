"""Auditing the log of a platform decider with a sealed seed (a tournament's, an arena's): the seed
checked against the commitment its creation published, then every decision re-made.

`opening` takes the whole event list and gives the state after creation with the revealed seed, or
None when the seed cannot be checked. `replay` walks the rest of the log from that state: each event
that opens a decision is turned back into the command that caused it (`cause`), decided again from
the state before it, and the events decided again must equal the recorded ones (or `agree` with
them); the walk stops at the first disagreement. Problems name the stream version (1-based) where
each was found.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional, TypeVar

import msgspec

from domain.kernel import RuleViolation, seed_commitment

S = TypeVar("S")
Cause = Callable[[Any, Any], tuple[Optional[Any], Optional[str]]]  # (state, event) -> (command, actor) or (None, None)


class AuditReport(msgspec.Struct, kw_only=True):
    """`ok` when nothing is wrong; `problems` name the stream version (1-based) where each was found."""

    ok: bool = True
    problems: list[str] = []
    decisions_checked: int = 0
    finished: bool = False


R = TypeVar("R", bound=AuditReport)


def audit(report: R, events: list[Any], created: type, revealed: type, evolve: Callable[[Any, Any], Any],
          cause: Cause, decide: Callable[[Any, Optional[str], Any], list[Any]], finished: Callable[[Any], bool],
          agree: Callable[[Any, list[Any], list[Any]], bool] | None = None) -> tuple[R, list[list[Any]]]:
    """`report` filled in for the whole log `events` (`opening`, then `replay`), and the decisions re-made;
    a competition that has not `finished` keeps its seed secret, so it cannot be audited yet."""
    state = opening(events, created, revealed, evolve, report.problems)
    decisions: list[list[Any]] = []
    if state is not None:
        state, decisions = replay(events, state, report.problems, cause, decide, evolve, agree)
        report.decisions_checked = len(decisions)
        report.finished = finished(state)
        if not report.problems and not report.finished:
            family = created.__struct_config__.tag.split(".")[0]  # type: ignore[attr-defined]
            report.problems.append(f"the {family} has not finished: its seed is still secret")
    report.ok = not report.problems
    return report, decisions


def count(decisions: list[list[Any]], kind: type) -> int:
    """How many of the events decided again are `kind`."""
    return sum(isinstance(e, kind) for decided in decisions for e in decided)


def tag(event: Any) -> str:
    return type(event).__struct_config__.tag


def opening(events: list[Any], created: type, revealed: type, evolve: Callable[[Any, Any], S],
            problems: list[str]) -> Optional[S]:
    """The state after the first event, a `created`, with the revealed seed (the last `revealed` event's,
    else the creation's own); None, with the problem noted, when the seed cannot be checked."""
    name = created.__struct_config__.tag  # type: ignore[attr-defined]
    if not events or not isinstance(events[0], created):
        problems.append(f"v1: the log does not start with {name}")
        return None
    first = events[0]
    seeds = [e.seed for e in events if isinstance(e, revealed)]
    seed = seeds[-1] if seeds else first.seed
    if seed is None:
        problems.append("the seed has not been revealed")
        return None
    if first.seed is not None and first.seed != seed:
        problems.append(f"the revealed seed is not the seed the {name.split('.')[0]} was created with")
    if seed_commitment(bytes.fromhex(seed)) != first.seed_commitment:
        problems.append("the revealed seed does not match the commitment published at creation")
        return None
    return evolve(None, msgspec.structs.replace(first, seed=seed))


def replay(events: list[Any], state: S, problems: list[str], cause: Cause,
           decide: Callable[[S, Optional[str], Any], list[Any]], evolve: Callable[[S, Any], S],
           agree: Callable[[S, list[Any], list[Any]], bool] | None = None) -> tuple[S, list[list[Any]]]:
    """The state after the decisions of `events[1:]` that check, and the events each of them gave."""
    decisions: list[list[Any]] = []
    i = 1
    while i < len(events):
        event = events[i]
        command, actor = cause(state, event)
        if command is None:
            problems.append(f"v{i + 1}: {tag(event)} was not produced by any command")
            break
        try:
            expected = decide(state, actor, command)
        except RuleViolation as exc:
            problems.append(f"v{i + 1}: {tag(event)} is refused by the rules ({exc.code}: {exc.message})")
            break
        recorded = events[i:i + len(expected)]
        if recorded != expected and not (agree is not None and agree(state, recorded, expected)):
            at = next((k for k, (r, e) in enumerate(zip(recorded, expected)) if r != e), len(recorded))
            what = tag(expected[at]) if at < len(expected) else "the end of the log"
            problems.append(f"v{i + at + 1}: the rules give another {what} than the one recorded")
            break
        for e in recorded:
            state = evolve(state, e)
        decisions.append(expected)
        i += len(expected)
    return state, decisions
