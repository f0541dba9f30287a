"""The contract every game implements, and the pieces all games share.

A game is a *decider*: `setup` and `decide` turn intentions into events,
`evolve` folds events into state, and `view`/`redact` are the only exits of
state towards a seat. Randomness comes only from `Rng`, a documented,
language-neutral generator (SHA-256 in counter mode) so that anyone holding
the revealed seed can re-derive every shuffle and die roll.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Optional, Protocol, TypeVar

import msgspec

State = TypeVar("State")
Command = TypeVar("Command")
Event = TypeVar("Event")
Options = TypeVar("Options")
C = TypeVar("C")


class RuleViolation(Exception):
    """A command refused by the rules; `code` is stable and documented (`tikal.no_path`)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"RuleViolation({self.code!r}, {self.message!r})"


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """Final result: per-seat score, rank (1 = best, ties share a rank), winning seats."""

    scores: list[int]
    ranks: list[int]
    winners: list[int]
    details: dict[str, Any] = {}


def ranked(scores: list[Any], keys: list[Any] | None = None) -> Outcome:
    """Rank seats by `keys` (default the scores), higher is better; equal keys share a rank."""
    keys = keys if keys is not None else scores
    ranks = [1 + sum(1 for other in keys if other > mine) for mine in keys]
    winners = [seat for seat, rank in enumerate(ranks) if rank == 1]
    return Outcome(scores=[int(s) for s in scores], ranks=ranks, winners=winners)


class Rng:
    """Deterministic randomness for one decision, derived from (seed, stream version).

    Algorithm (normative, so other languages can re-derive it):
      word(k) = first 8 bytes, big-endian, of
                SHA-256(b"stela-rng\\x00" || seed || u64be(version) || u64be(k))
      for k = 0, 1, 2, ... (the draw index, one per word consumed).
    `below(n)`: draw words until w < 2**64 - (2**64 mod n), return w mod n
    (rejection sampling, no modulo bias). `shuffle`: Fisher-Yates from the
    last index down, swapping i with below(i + 1). A die is 1 + below(sides).
    """

    DOMAIN: ClassVar[bytes] = b"stela-rng\x00"
    _SPAN: ClassVar[int] = 1 << 64

    def __init__(self, seed: bytes, version: int) -> None:
        self._prefix = self.DOMAIN + seed + version.to_bytes(8, "big")
        self.draws = 0

    def word(self) -> int:
        """The next raw 64-bit word."""
        digest = hashlib.sha256(self._prefix + self.draws.to_bytes(8, "big")).digest()
        self.draws += 1
        return int.from_bytes(digest[:8], "big")

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        if n <= 0:
            raise ValueError("below() needs n >= 1")
        limit = self._SPAN - (self._SPAN % n)
        while True:
            w = self.word()
            if w < limit:
                return w % n

    def between(self, low: int, high: int) -> int:
        """A uniform integer in [low, high] inclusive."""
        return low + self.below(high - low + 1)

    def die(self, sides: int = 6) -> int:
        """One roll of a fair die numbered 1..sides."""
        return 1 + self.below(sides)

    def choice(self, items: list[Any] | tuple[Any, ...]) -> Any:
        """One element chosen uniformly."""
        return items[self.below(len(items))]

    def shuffle(self, items: list[Any] | tuple[Any, ...]) -> list[Any]:
        """A new list holding `items` in Fisher-Yates order; the input is not touched."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def seed_commitment(seed: bytes) -> str:
    """The public SHA-256 commitment (hex) to a game's secret seed."""
    return hashlib.sha256(seed).hexdigest()


class LastAction(msgspec.Struct, frozen=True, kw_only=True):
    """What the latest command did: `seat` who acted (None: the platform), `text` in plain words,
    `event` the tag of the event it describes."""

    seat: Optional[int]
    text: str
    event: str


class View(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind"):
    """The envelope every kind's view shares; each kind subclasses it with `tag="<kind>"`.

    `seat` is whose view it is (None = a spectator), `phase` the kind's current phase,
    `to_act` the seats that must act now, `scores` each seat's score as it stands (null where
    the viewer may not know it, never a misleading 0). `last` says in words what the latest
    command did, as this viewer may see it (filled in by the table; null before any).
    Every face-up component inside a view carries its printed data, not only its id.
    """

    seat: Optional[int]
    phase: str
    to_act: list[int]
    scores: list[Optional[int]]
    last: Optional[LastAction] = None


def require(*checks: Optional[RuleViolation]) -> None:
    """Raise the first refusal among `checks` (the predicates' results); `decide` calls this."""
    for check in checks:
        if check is not None:
            raise check


def offered(candidates: Iterable[C], check: Callable[[C], Optional[RuleViolation]]) -> list[C]:
    """The candidates `check` does not refuse; `legal` calls this with the predicate `decide` uses."""
    return [c for c in candidates if check(c) is None]


class Emitter(Generic[State, Event]):
    """Collects a decision's events while folding them, so each step reads the state so far.

    `emit = Emitter(evolve, state)`; `emit(e1, e2)` appends and folds and returns the new
    state; `emit.events` is the decision's result and `emit.state` the state after it.
    """

    def __init__(self, evolve: Callable[[Optional[State], Event], State], state: Optional[State]) -> None:
        self._evolve = evolve
        self.state = state
        self.events: list[Event] = []

    def __call__(self, *events: Event) -> State:
        for event in events:
            self.events.append(event)
            self.state = self._evolve(self.state, event)
        assert self.state is not None
        return self.state


def fold(evolve: Callable[[Optional[State], Event], State], state: Optional[State], events: Iterable[Event]) -> State:
    """`state` after `events`, folded one by one with `evolve`."""
    for event in events:
        state = evolve(state, event)
    assert state is not None, "cannot fold an empty stream"
    return state


def evolved(handlers: Mapping[type, Callable[[State, Any], State]], state: State, event: Any) -> State:
    """`state` after `event`, folded by the handler `handlers` holds for the event's type.

    Each game's `evolve` is one small function per event type in such a table. An event
    type without a handler is a bug (an event added without its fold) and raises; it is
    never skipped, so replay cannot silently drop a fact."""
    handler = handlers.get(type(event))
    if handler is None:
        raise AssertionError(f"no evolve handler for {type(event).__name__}")
    return handler(state, event)


# -- the decider record and its optional capabilities ------------------------------

class BoardPicture(Protocol):
    """Optional capability: an SVG picture of the board as `seat` may see it."""

    def __call__(self, state: Any, seat: Optional[int]) -> str: ...


class BotWeights(Protocol):
    """Optional capability: non-negative weights that bias random bots towards sensible play."""

    def __call__(self, state: Any, seat: int, commands: list[Any]) -> list[int]: ...


class BotScores(Protocol):
    """Optional capability: a greedy bot's score for each legal command (higher is better), in order.

    It reads only what a client holds: `view`, the seat's own view as JSON (`GET /v1/games/{id}`'s
    `view`), and `commands`, the JSON of `/legal`; never the state, so it learns nothing hidden."""

    def __call__(self, view: dict[str, Any], seat: int, commands: list[dict[str, Any]]) -> list[float]: ...


class TimeoutRule(Protocol):
    """Optional capability: the command played for a seat that ran out of time (None: it forfeits)."""

    def __call__(self, state: Any, seat: int) -> Any: ...


class OptionsUpgrade(Protocol):
    """Optional capability: options as an earlier version of the kind stored them (in `table.GameCreated`
    and in any game event that embeds them), rewritten as this version reads them, so that stored logs
    keep replaying after an option is renamed. Called only when the stored form no longer decodes."""

    def __call__(self, options: dict[str, Any], seats: int) -> dict[str, Any]: ...


class Invariants(Protocol):
    """Optional capability: raise AssertionError when `state` breaks a rule of the game."""

    def __call__(self, state: Any) -> None: ...


@dataclass(frozen=True, kw_only=True)
class Game(Generic[State, Command, Event, Options]):
    """One board game's rules, pure: no I/O, no clock, no global randomness.

    Each game package declares one of these in `game.py`. `options_type`,
    `command_type` (a tagged union, tags "<kind>.<Name>"), `event_type`,
    `state_type` and `view_type` are msgspec types; `components` is the kind's
    whole printed catalogue (a msgspec value). `setup` validates options against
    the seat count and raises RuleViolation("<kind>.bad_options", ...) when they
    do not fit. `codes` documents every RuleViolation code the game can raise.
    `legal` lists exactly the commands `decide` accepts from `seat` now.
    """

    kind: str
    title: str
    min_players: int
    max_players: int
    codes: Mapping[str, str]
    options_type: type
    command_type: Any
    event_type: Any
    state_type: type
    view_type: type
    components: Any
    setup: Callable[[Any, int, Rng], list[Any]]
    evolve: Callable[[Any, Any], Any]
    decide: Callable[[Any, int, Any, Rng], list[Any]]
    legal: Callable[[Any, int], list[Any]]
    to_act: Callable[[Any], frozenset[int]]
    view: Callable[[Any, Optional[int]], View]
    redact: Callable[[Any, Optional[int]], Any]
    outcome: Callable[[Any], Optional[Outcome]]
    invariants: Optional[Invariants] = None
    board_svg: Optional[BoardPicture] = None
    bot_weights: Optional[BotWeights] = None
    bot_scores: Optional[BotScores] = None
    timeout_command: Optional[TimeoutRule] = None
    upgrade_options: Optional[OptionsUpgrade] = None
    phrases: Mapping[type, str | Phrase] = field(default_factory=dict)  # see `describe`


@dataclass(frozen=True)
class Phrase:
    """What one kind of event says a seat did: `text` is a `str.format` pattern over the event's fields,
    `sender` the field naming the seat that sent the command (not a seat it acted upon), and `when`,
    if given, tells from the game's state before it whether an event of the type is a command's own
    result (a tile Explore drew, not one the scout map turned up). A bare string in `Game.phrases` is
    `Phrase(text)`."""

    text: str
    sender: str = "seat"
    when: Optional[Callable[[Any, Any], bool]] = None


def phrase_of(phrases: Mapping[type, str | Phrase], event: Any) -> Optional[Phrase]:
    """The phrase for events of `event`'s type, or None when the type has none."""
    found = phrases.get(type(event))
    return Phrase(found) if isinstance(found, str) else found


def own_result(phrases: Mapping[type, str | Phrase], state: Any, event: Any) -> bool:
    """Is `event`, coming after the game's `state`, a command's own result (what `last` describes)?"""
    phrase = phrase_of(phrases, event)
    return phrase is not None and (phrase.when is None or phrase.when(state, event))


def describe(phrases: Mapping[type, str | Phrase], event: Any) -> Optional[LastAction]:
    """What `event` (as a viewer may see it) says its sender did, in words, or None when it is not a
    command's own result by `phrases` (`TreasureDug`, not the scoring that follows).

    A field redacted to None reads "hidden". The acting seat is the phrase's `sender` field of the
    event, so the words name who sent the command even when it moved another seat's piece."""
    phrase = phrase_of(phrases, event)
    if phrase is None:
        return None
    fields = {k: ("hidden" if v is None else v) for k, v in msgspec.structs.asdict(event).items()}
    tag = type(event).__struct_config__.tag
    return LastAction(seat=getattr(event, phrase.sender), text=phrase.text.format(**fields), event=str(tag))
