"""The platform's decisions: create, join, leave, start, play, time out, resign, abort.

Each returns the events of the decision or raises RuleViolation with a `table.*` code;
`play` hands the seat's command to the game's `decide`, and every decision after which
the game's `outcome` is known ends the stream with `GameEnded` and `SeedRevealed`.

A seat that leaves a running game (resigns, or is abandoned after `abandon_after` timeouts in a
row) ends a game of two seats. In a game of three or more seats created with `play_on` (every
game since it exists) the game goes on while two seats or more are still in it: whenever a seat
that left must act, the kind's timeout rule plays for it within the same decision (the Rng of
each such command derived from the stream version before it, as for any command), and at the
end it ranks below every seat still in (`leaving`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import msgspec

from domain.clock import TimeControl, TimedOut, TimeOut, advance
from domain.kernel import Game, Rng, RuleViolation, seed_commitment
from domain.table.commands import Resign
from domain.table.events import (GameAborted, GameCreated, GameEnded, GameStarted, SeatLeft, SeatResigned, SeatTaken,
                                 SeedRevealed)
from domain.table.leaving import ended_by_leaving, left_last
from domain.table.state import TableState

STAND_IN_LIMIT = 1_000  # commands played for seats that left in one decision: a kind whose timeout rule
                        # never hands the turn on ends the game by the leaving rule rather than loop


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
                            seed=seed.hex(), time_control=control, play_on=True)]

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
        return self.play_folded(state, seat, command, now_ms)[0]

    def play_folded(self, state: TableState, seat: int, command: Any,
                    now_ms: int | None = None) -> tuple[list[Any], TableState]:
        """`play`, with the state after its events (folded once, as deciding the end needs it anyway)."""
        if state.status != "active":
            raise RuleViolation("table.not_active", f"the game is {state.status}")
        if not 0 <= seat < state.seat_count:
            raise RuleViolation("table.no_such_seat", f"seat {seat} does not exist")
        if seat in state.resigned:
            raise RuleViolation("table.seat_left", f"seat {seat} has left the game")
        if isinstance(command, Resign):
            events = self.resign(state, seat, "resigned", now_ms)
            return events, self.fold(events, state)
        rng = Rng(bytes.fromhex(state.seed), state.version)
        events = self.game.decide(state.game, seat, command, rng)
        return self._settled(state, events, seat, now_ms)

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
            return events + self.resign(after, seat, reason, now_ms)
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
        return self._settled(state, events, acted, now_ms, timed_out)[0]

    def _settled(self, state: TableState, events: list[Any], acted: int | None, now_ms: int | None,
                 timed_out: bool = False) -> tuple[list[Any], TableState]:
        """`_settle`'s events and the state after all of them."""
        after = self.fold(events, state) if events else state
        if after.resigned and after.play_on:
            extra = self._stand_in(after)
            after, events = self.fold(extra, after), events + extra
            if after.status == "finished":
                return events, after
        ending = self._ending(after)
        if ending or state.time_control is None or after.clock is None:
            return events + ending, self.fold(ending, after) if ending else after
        if now_ms is None:
            raise ValueError("a game with a time control needs now_ms for every decision")
        tick = advance(state.time_control, after.clock, acted, self.game.to_act(after.game), now_ms, timed_out)
        return (events + [tick], self.evolve(after, tick)) if tick is not None else (events, after)

    def resign(self, state: TableState, seat: int, reason: Literal["resigned", "abandoned", "timed_out"],
               now_ms: int | None = None) -> list[Any]:
        """`seat` leaves the running game: the game ends (`leaving`), or goes on without it when it was
        created with `play_on`, seats three or more and leaves two seats or more still in it."""
        if state.status != "active" or state.game is None:
            raise RuleViolation("table.not_active", f"the game is {state.status}")
        if seat in state.resigned:
            raise RuleViolation("table.seat_left", f"seat {seat} has already left the game")
        left = SeatResigned(seat=seat, reason=reason)
        if state.play_on and state.seat_count - len(state.resigned) - 1 >= 2:
            return [left] + self._settle(self.evolve(state, left), [], None, now_ms)
        return [left] + self._left_ending(self.evolve(state, left), seat, reason)

    def _left_ending(self, after: TableState, seat: int, reason: str) -> list[Any]:
        """The game ends because `seat` left (see `leaving.ended_by_leaving`)."""
        # each seat's own view shows its own score (a kind may hide scores from the others)
        scores = [self.game.view(after.game, s).scores[s] for s in range(after.seat_count)]
        outcome = ended_by_leaving(scores, after.resigned, seat, reason, after.play_on)
        return [GameEnded(outcome=outcome), SeedRevealed(seed=after.seed)]

    def _stand_in(self, state: TableState) -> list[Any]:
        """The commands the kind's timeout rule plays for the seats that left while one of them must act,
        up to the end of the game (its `GameEnded` included) or a seat still in being the only ones to act."""
        events: list[Any] = []
        for _ in range(STAND_IN_LIMIT):
            if self.game.outcome(state.game) is not None:
                return events
            waiting = [s for s in sorted(self.game.to_act(state.game)) if s in state.resigned]
            if not waiting:
                return events
            command = self._timeout_command(state, waiting[0])
            if command is None:
                break
            played = self.game.decide(state.game, waiting[0], command, Rng(bytes.fromhex(state.seed), state.version))
            events += played
            state = self.fold(played, state)
        return events + self._left_ending(state, state.resigned[-1], "abandoned")

    def abort(self, state: TableState, reason: str) -> list[Any]:
        if state.status in ("finished", "aborted"):
            raise RuleViolation("table.over", "the game is already over")
        return [GameAborted(reason=reason), SeedRevealed(seed=state.seed)]

    def _ending(self, after: TableState) -> list[Any]:
        outcome = self.game.outcome(after.game) if after.game is not None else None
        if outcome is None:
            return []
        if after.play_on and after.resigned:
            outcome = left_last(outcome, after.resigned)
        return [GameEnded(outcome=outcome), SeedRevealed(seed=after.seed)]
