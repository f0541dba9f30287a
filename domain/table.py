"""The platform decider: a game's lifecycle around its rules.

A stream starts with `GameCreated` (options and the seed's commitment),
then `SeatTaken` for each player, `GameStarted` followed by the game's own
setup events, the game's events, and finally `GameEnded` (the outcome) and
`SeedRevealed`. `Table` wraps one `Game` so that games hold only their rules;
the stream version (number of events so far) seeds the `Rng` of every
decision, so a revealed seed lets anyone re-derive each random outcome.
"""

from __future__ import annotations

from typing import Any, Literal, Union

import msgspec

from domain.clock import Clock, ClockSet, TimeControl, TimedOut, TimeOut, advance, new_clock
from domain.clock import apply as apply_clock
from domain.kernel import Game, Outcome, Rng, RuleViolation, ranked, seed_commitment

Status = Literal["open", "active", "finished", "aborted"]


class GameCreated(msgspec.Struct, frozen=True, kw_only=True, tag="table.GameCreated", tag_field="type"):
    kind: str
    options: dict[str, Any]
    seats: int
    seed_commitment: str
    created_by: str | None = None
    seed: str | None = None  # secret until the end: redacted from every reader while the game runs
    time_control: TimeControl | None = None


class SeatTaken(msgspec.Struct, frozen=True, kw_only=True, tag="table.SeatTaken", tag_field="type"):
    seat: int
    player_id: str
    name: str


class GameStarted(msgspec.Struct, frozen=True, kw_only=True, tag="table.GameStarted", tag_field="type"):
    seats: int


class GameEnded(msgspec.Struct, frozen=True, kw_only=True, tag="table.GameEnded", tag_field="type"):
    outcome: Outcome


class SeedRevealed(msgspec.Struct, frozen=True, kw_only=True, tag="table.SeedRevealed", tag_field="type"):
    seed: str


class GameAborted(msgspec.Struct, frozen=True, kw_only=True, tag="table.GameAborted", tag_field="type"):
    reason: str


class SeatLeft(msgspec.Struct, frozen=True, kw_only=True, tag="table.SeatLeft", tag_field="type"):
    """A player gave up their seat before the start; the seat is free again."""

    seat: int
    player_id: str


class SeatResigned(msgspec.Struct, frozen=True, kw_only=True, tag="table.SeatResigned", tag_field="type"):
    """A seat left a running game (`resigned` by its player, or `abandoned` after repeated timeouts)."""

    seat: int
    reason: Literal["resigned", "abandoned", "timed_out"] = "resigned"


TableEvent = Union[GameCreated, SeatTaken, GameStarted, GameEnded, SeedRevealed, GameAborted, SeatLeft, SeatResigned,
                   ClockSet, TimedOut]
TABLE_EVENTS: tuple[type, ...] = (GameCreated, SeatTaken, GameStarted, GameEnded, SeedRevealed, GameAborted,
                                  SeatLeft, SeatResigned, ClockSet, TimedOut)


class Resign(msgspec.Struct, frozen=True, kw_only=True, tag="table.Resign", tag_field="type",
             forbid_unknown_fields=True):
    """Platform command: the seat gives up the running game (always allowed to a seated player)."""


TableCommand = Resign
TABLE_CODES: dict[str, str] = {
    "table.bad_seat_count": "the kind is not for that many players",
    "table.bad_options": "the options do not decode",
    "table.not_open": "the game is not open for players (or has already started)",
    "table.already_seated": "this player already has a seat",
    "table.full": "every seat is taken",
    "table.no_such_seat": "the seat does not exist",
    "table.seat_taken": "the seat is taken",
    "table.not_seated": "only a seated player (or the creator, to start) may do this",
    "table.seats_open": "every seat must be taken before the start",
    "table.not_active": "the game is not running",
    "table.over": "the game is already over",
    "table.bad_time_control": "give exactly one of per_move_seconds and total_seconds",
    "table.not_due": "the seat is not past a deadline (no clock, not acting, or not yet)",
}


class SeatInfo(msgspec.Struct, frozen=True):
    seat: int
    player_id: str
    name: str


class TableState(msgspec.Struct, frozen=True, kw_only=True):
    """Everything known about one game stream after folding `version` events."""

    kind: str
    options: Any
    seat_count: int
    seats: tuple[SeatInfo | None, ...]
    seed: str
    commitment: str
    created_by: str | None = None
    status: Status = "open"
    game: Any = None
    outcome: Outcome | None = None
    version: int = 0
    revealed: bool = False
    resigned: tuple[int, ...] = ()  # seats that left the running game
    time_control: TimeControl | None = None
    clock: Clock | None = None


def _snapshot_type(options_type: type, state_type: type) -> type:
    """TableState's shape with the kind's own option and state types, for decoding snapshots."""
    fields: list[Any] = []
    for f in msgspec.structs.fields(TableState):
        kind = options_type if f.name == "options" else (state_type | None if f.name == "game" else f.type)
        fields.append((f.name, kind) if f.required else (f.name, kind, f.default))
    return msgspec.defstruct("Snapshot", fields, kw_only=True, frozen=True)


_ENCODER = msgspec.json.Encoder()


def _tag(event: Any) -> str:
    return type(event).__struct_config__.tag


class Table:
    """Lifecycle rules for games of one kind, wrapping that kind's `Game`."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.kind = game.kind
        self.event_union = Union[TableEvent, game.event_type]  # type: ignore[valid-type]
        self.command_union = Union[TableCommand, game.command_type]  # type: ignore[valid-type]
        self.options_type = game.options_type
        # decoders built once: msgspec.convert over a Union rebuilds its type info on every call
        self._events_json = msgspec.json.Decoder(self.event_union)
        self._commands_json = msgspec.json.Decoder(self.command_union)
        self._snapshot_json = msgspec.json.Decoder(_snapshot_type(game.options_type, game.state_type))

    # -- options -----------------------------------------------------------
    def parse_options(self, raw: dict[str, Any] | None, seats: int) -> Any:
        """Decode and check options for `seats` players; RuleViolation when they do not fit."""
        game = self.game
        if not game.min_players <= seats <= game.max_players:
            raise RuleViolation(
                "table.bad_seat_count",
                f"{game.kind} is for {game.min_players}-{game.max_players} players, not {seats}",
            )
        try:
            options = msgspec.convert(raw or {}, self.options_type)
        except msgspec.ValidationError as exc:
            raise RuleViolation("table.bad_options", f"invalid options: {exc}") from exc
        # setup validates options against the seat count; its events are discarded here
        game.setup(options, seats, Rng(b"options-check", 0))
        return options

    # -- decisions -----------------------------------------------------------
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

    # -- folding ---------------------------------------------------------------
    def evolve(self, state: TableState | None, event: Any) -> TableState:
        match event:
            case GameCreated():
                assert event.seed is not None, "GameCreated must carry the seed in the store"
                return TableState(
                    kind=event.kind, options=self._stored_options(event.options, event.seats),
                    seat_count=event.seats, seats=(None,) * event.seats, seed=event.seed,
                    commitment=event.seed_commitment, created_by=event.created_by, version=1,
                    time_control=event.time_control,
                    clock=new_clock(event.time_control, event.seats) if event.time_control else None)
        assert state is not None, "a stream starts with GameCreated"
        version = state.version + 1
        match event:
            case SeatTaken():
                seats = list(state.seats)
                seats[event.seat] = SeatInfo(event.seat, event.player_id, event.name)
                return msgspec.structs.replace(state, seats=tuple(seats), version=version)
            case SeatLeft():
                seats = list(state.seats)
                seats[event.seat] = None
                return msgspec.structs.replace(state, seats=tuple(seats), version=version)
            case SeatResigned():
                return msgspec.structs.replace(state, resigned=(*state.resigned, event.seat), version=version)
            case ClockSet() | TimedOut():
                assert state.clock is not None, "clock events need a time control"
                return msgspec.structs.replace(state, clock=apply_clock(state.clock, event), version=version)
            case GameStarted():
                return msgspec.structs.replace(state, status="active", version=version)
            case GameEnded():
                return msgspec.structs.replace(state, status="finished", outcome=event.outcome, version=version)
            case GameAborted():
                return msgspec.structs.replace(state, status="aborted", version=version)
            case SeedRevealed():
                return msgspec.structs.replace(state, revealed=True, version=version)
            case _:
                game_state = self.game.evolve(state.game, event)
                return msgspec.structs.replace(state, game=game_state, version=version)

    def fold(self, events: list[Any], state: TableState | None = None) -> TableState:
        for event in events:
            state = self.evolve(state, event)
        assert state is not None, "cannot fold an empty stream"
        return state

    # -- reading -----------------------------------------------------------------
    @staticmethod
    def seat_of(state: TableState, player_id: str) -> int | None:
        for info in state.seats:
            if info is not None and info.player_id == player_id:
                return info.seat
        return None

    def to_act(self, state: TableState) -> list[int]:
        if state.status != "active" or state.game is None:
            return []
        return sorted(self.game.to_act(state.game))

    def legal(self, state: TableState, seat: int) -> list[Any]:
        if state.status != "active" or state.game is None:
            return []
        return self.game.legal(state.game, seat)

    def view(self, state: TableState, seat: int | None) -> Any:
        """The game view for `seat` (None = spectator); everything once the game is over."""
        if state.game is None:
            return None
        return self.game.view(state.game, seat)

    def redact(self, event: Any, seat: int | None, public: bool) -> Any | None:
        """`event` as `seat` may see it; `public` (the game is over) shows everything."""
        if public:
            return event
        if isinstance(event, GameCreated):
            return msgspec.structs.replace(event, seed=None)
        if isinstance(event, TABLE_EVENTS):
            return event
        return self.game.redact(event, seat)

    # -- wire codec ------------------------------------------------------------
    @staticmethod
    def event_type(event: Any) -> str:
        return _tag(event)

    @staticmethod
    def event_data(event: Any) -> dict[str, Any]:
        data = msgspec.to_builtins(event)
        data.pop("type", None)
        return data

    def decode_event(self, type_: str, data: dict[str, Any]) -> Any:
        try:
            return msgspec.convert({**data, "type": type_}, self.event_union)
        except msgspec.ValidationError:
            upgraded = self._upgraded_event(type_, data)
            if upgraded is None:
                raise
            return upgraded

    def decode_event_json(self, type_: str, data: bytes | str) -> Any:
        """An event from its stored JSON object `data` (without "type") and its `type_` tag."""
        raw = data.encode() if isinstance(data, str) else data
        inner = raw.strip()[1:-1].strip()
        tag = msgspec.json.encode(type_)
        try:
            return self._events_json.decode(b'{"type":' + tag + (b"," + inner if inner else b"") + b"}")
        except msgspec.ValidationError:
            upgraded = self._upgraded_event(type_, msgspec.json.decode(raw))
            if upgraded is None:
                raise
            return upgraded

    def _stored_options(self, raw: dict[str, Any], seats: int) -> Any:
        """The options of a stored `table.GameCreated`, upgraded if an earlier version wrote them."""
        try:
            return msgspec.convert(raw, self.options_type)
        except msgspec.ValidationError:
            if self.game.upgrade_options is None:
                raise
            return msgspec.convert(self.game.upgrade_options(dict(raw), seats), self.options_type)

    def _upgraded_event(self, type_: str, data: dict[str, Any]) -> Any:
        """A stored game event that embeds options an earlier version wrote (None: nothing to upgrade)."""
        upgrade = self.game.upgrade_options
        if upgrade is None or not isinstance(data.get("options"), dict):
            return None
        seats = data.get("seats") if isinstance(data.get("seats"), int) else 0
        data = {**data, "options": upgrade(dict(data["options"]), seats)}
        return msgspec.convert({"type": type_, **data}, self.event_union)

    def decode_command(self, raw: Any) -> Any:
        """A command from its wire form; RuleViolation-free: raises msgspec.ValidationError."""
        return msgspec.convert(raw, self.command_union)

    def decode_command_json(self, raw: bytes | str) -> Any:
        """A command from its JSON text; raises msgspec.ValidationError / DecodeError."""
        return self._commands_json.decode(raw)

    # -- snapshots -------------------------------------------------------------
    def dump_state(self, state: TableState) -> bytes:
        """`state` as JSON that `load_state` turns back into an equal TableState."""
        return _ENCODER.encode(state)

    def load_state(self, data: bytes | str) -> TableState:
        """The TableState `dump_state` wrote (options and game state decoded into their own types)."""
        snap = self._snapshot_json.decode(data)
        return TableState(**{f: getattr(snap, f) for f in snap.__struct_fields__})
