"""The platform's decisions: create, join, leave, start, play, time out, resign, abort.

Each returns the events of the decision or raises RuleViolation with a `table.*` code;
`play` hands the seat's command to the game's `decide`, and every decision after which
the game's `outcome` is known ends the stream with `GameEnded` and `SeedRevealed`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import msgspec

from domain.clock import TimeControl, TimedOut, TimeOut, advance
from domain.kernel import Game, Rng, RuleViolation, ranked, seed_commitment
from domain.table.commands import Resign
from domain.table.events import (GameAborted, GameCreated, GameEnded, GameStarted, SeatLeft, SeatResigned, SeatTaken,
                                 SeedRevealed)
from domain.table.state import TableState


class TableRules:
    """The `Table` part that decides; it folds with `evolve`/`fold` and reads options with `parse_options`."""

    game: Game
    kind: str

    # provided by the other parts of `Table` (annotations only, so they never shadow the real methods)
    parse_options: Callable[[dict[str, Any] | None, int], Any]
    evolve: Callable[[TableState | None, Any], TableState]
    fold: Callable[..., TableState]
    seat_of: Callable[[TableState, str], int | None]

    def create(self, raw_options: dict[str, Any] | None, seats: int, seed: bytes,
               created_by: str | None = None, time_control: Any = None) -> list[Any]:
        """A new game; `time_control` (a TimeControl or its dict) puts every seat on a clock."""
        options = self.parse_options(raw_options, seats)
        control = None
        if time_control is not None:
            try:
                control = msgspec.convert(time_control, TimeControl)
            except msgspec.ValidationError as exc:
                raise RuleViolation("table.bad_time_control", f"invalid time control: {exc}") from exc
            if control.problem():
                raise RuleViolation("table.bad_time_control", control.problem() or "")
        return [GameCreated(kind=self.kind, options=msgspec.to_builtins(options), seats=seats,
                            seed_commitment=seed_commitment(seed), created_by=created_by,
                            seed=seed.hex(), time_control=control)]

    def join(self, state: TableState, player_id: str, name: str, seat: int | None = None) -> list[Any]:
        if state.status != "open":
            raise RuleViolation("table.not_open", "the game is not open for players")
        if any(s is not None and s.player_id == player_id for s in state.seats):
            raise RuleViolation("table.already_seated", "this player already has a seat")
        free = [i for i, s in enumerate(state.seats) if s is None]
        if not free:
            raise RuleViolation("table.full", "every seat is taken")
        if seat is None:
            seat = free[0]
        elif not 0 <= seat < state.seat_count:
            raise RuleViolation("table.no_such_seat", f"seat {seat} does not exist")
        elif seat not in free:
            raise RuleViolation("table.seat_taken", f"seat {seat} is taken")
        return [SeatTaken(seat=seat, player_id=player_id, name=name)]

    def leave(self, state: TableState, player_id: str) -> list[Any]:
        """Give up a seat before the start."""
        if state.status != "open":
            raise RuleViolation("table.not_open", "seats can be left only before the start")
        seat = self.seat_of(state, player_id)
        if seat is None:
            raise RuleViolation("table.not_seated", "this player has no seat in the game")
        return [SeatLeft(seat=seat, player_id=player_id)]

    def start(self, state: TableState, player_id: str | None, now_ms: int | None = None) -> list[Any]:
        """Start a full game (`now_ms` starts the clocks when the game has a time control)."""
        if state.status != "open":
            raise RuleViolation("table.not_open", "the game has already started or ended")
        if player_id is not None and self.seat_of(state, player_id) is None and player_id != state.created_by:
            raise RuleViolation("table.not_seated", "only a seated player or the creator may start")
        if any(s is None for s in state.seats):
            raise RuleViolation("table.seats_open", "every seat must be taken before the start")
        rng = Rng(bytes.fromhex(state.seed), state.version)
        events: list[Any] = [GameStarted(seats=state.seat_count)]
        events += self.game.setup(state.options, state.seat_count, rng)
        return self._settle(state, events, None, now_ms)

    def play(self, state: TableState, seat: int, command: Any, now_ms: int | None = None) -> list[Any]:
        """Decide one command for `seat`; appends the clock's change, or the end when the game ends."""
        if state.status != "active":
            raise RuleViolation("table.not_active", f"the game is {state.status}")
        if not 0 <= seat < state.seat_count:
            raise RuleViolation("table.no_such_seat", f"seat {seat} does not exist")
        if isinstance(command, Resign):
            return self.resign(state, seat, "resigned")
        rng = Rng(bytes.fromhex(state.seed), state.version)
        events = self.game.decide(state.game, seat, command, rng)
        return self._settle(state, events, seat, now_ms)

    def timeout(self, state: TableState, command: TimeOut) -> list[Any]:
        """The timeout worker's command: the kind's timeout rule plays for a seat past its deadline."""
        seat, now_ms = command.seat, command.at_ms
        clock = state.clock
        if state.status != "active" or state.game is None or clock is None or state.time_control is None \
                or not 0 <= seat < state.seat_count:
            raise RuleViolation("table.not_due", "the game has no running clock for that seat")
        deadline = clock.deadlines_ms[seat]
        if deadline is None or deadline > now_ms:
            raise RuleViolation("table.not_due", f"seat {seat} is not past a deadline at {now_ms}")
        consecutive = clock.timeouts[seat] + 1
        fallback = self._timeout_command(state, seat) if consecutive < state.time_control.abandon_after else None
        played = None if fallback is None else type(fallback).__struct_config__.tag
        events: list[Any] = [TimedOut(seat=seat, at_ms=now_ms, consecutive=consecutive, played=played)]
        after = self.evolve(state, events[0])
        if fallback is None:
            reason = "abandoned" if consecutive >= state.time_control.abandon_after else "timed_out"
            return events + self.resign(after, seat, reason)
        rng = Rng(bytes.fromhex(state.seed), after.version)
        return events + self._settle(after, self.game.decide(after.game, seat, fallback, rng), seat, now_ms,
                                     timed_out=True)

    def _timeout_command(self, state: TableState, seat: int) -> Any | None:
        """What is played for a timed-out seat: the kind's timeout rule, else its end of turn
        (`EndTurn` or `Pass`) when legal, else the first command `legal` offers (None: nothing)."""
        if self.game.timeout_command is not None:
            return self.game.timeout_command(state.game, seat)
        offered = self.game.legal(state.game, seat)
        for command in offered:
            if type(command).__struct_config__.tag.rsplit(".", 1)[1] in ("EndTurn", "Pass"):
                return command
        return offered[0] if offered else None

    def _settle(self, state: TableState, events: list[Any], acted: int | None, now_ms: int | None,
                timed_out: bool = False) -> list[Any]:
        """`events` followed by the game's end when it ended, else by the clock's change."""
        after = self.fold(events, state) if events else state
        ending = self._ending(after)
        if ending or state.time_control is None or after.clock is None:
            return events + ending
        if now_ms is None:
            raise ValueError("a game with a time control needs now_ms for every decision")
        tick = advance(state.time_control, after.clock, acted, self.game.to_act(after.game), now_ms, timed_out)
        return events + ([tick] if tick is not None else [])

    def resign(self, state: TableState, seat: int, reason: Literal["resigned", "abandoned"]) -> list[Any]:
        """`seat` leaves the running game, which ends at once (the rule for every kind).

        The other seats are ranked among themselves by their scores as they stand (the view's
        `scores`; equal scores share a rank) and all above the resigned seat, so in a
        two-player game the opponent wins. `details` names the resigned seat and why.
        """
        if state.status != "active" or state.game is None:
            raise RuleViolation("table.not_active", f"the game is {state.status}")
        # each seat's own view shows its own score (a kind may hide scores from the others)
        scores = [self.game.view(state.game, s).scores[s] for s in range(state.seat_count)]
        keys = [(0, 0) if s == seat else (1, scores[s]) for s in range(state.seat_count)]
        outcome = msgspec.structs.replace(ranked(scores, keys), details={"resigned": seat, "reason": reason})
        return [SeatResigned(seat=seat, reason=reason), GameEnded(outcome=outcome), SeedRevealed(seed=state.seed)]

    def abort(self, state: TableState, reason: str) -> list[Any]:
        if state.status in ("finished", "aborted"):
            raise RuleViolation("table.over", "the game is already over")
        return [GameAborted(reason=reason), SeedRevealed(seed=state.seed)]

    def _ending(self, after: TableState) -> list[Any]:
        outcome = self.game.outcome(after.game) if after.game is not None else None
        if outcome is None:
            return []
        return [GameEnded(outcome=outcome), SeedRevealed(seed=after.seed)]
