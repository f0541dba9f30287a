"""Tally: a tiny test-only game that exercises every platform path.

Each seat is dealt a secret number (hidden from the others), players add 1-3
to a shared counter or roll a die for it, and whoever brings the counter to
the target wins; scores are each seat's own additions plus its secret. It has
hidden information, randomness at setup and in play, and a clear end.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union, assert_never

import msgspec

from domain.kernel import Game, Outcome, Rng, RuleViolation, View, offered, ranked, require


class TallyOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    target: Annotated[int, msgspec.Meta(description="the total that wins")] = 15
    mode: Annotated[Literal["plain", "rolls"], msgspec.Meta(description="unused by the rules")] = "plain"


class Add(msgspec.Struct, frozen=True, tag="tally.Add", tag_field="type", forbid_unknown_fields=True):
    amount: int


class Roll(msgspec.Struct, frozen=True, tag="tally.Roll", tag_field="type", forbid_unknown_fields=True):
    pass


TallyCommand = Union[Add, Roll]


class SecretsDealt(msgspec.Struct, frozen=True, tag="tally.SecretsDealt", tag_field="type"):
    secrets: list[int | None]
    target: int


class Added(msgspec.Struct, frozen=True, tag="tally.Added", tag_field="type"):
    seat: int
    amount: int
    rolled: bool = False


TallyEvent = Union[SecretsDealt, Added]


class TallyState(msgspec.Struct, frozen=True):
    secrets: tuple[int, ...]
    target: int
    total: int = 0
    turn: int = 0
    added: tuple[int, ...] = ()
    winner: int | None = None


class TallyView(View, frozen=True, kw_only=True, tag="tally"):
    total: int
    target: int
    turn: int
    added: list[int]
    my_secret: int | None = None


def _setup(options: TallyOptions, seats: int, rng: Rng) -> list[TallyEvent]:
    require(None if 3 <= options.target <= 1000 else RuleViolation("tally.bad_options", "target must be 3..1000"))
    return [SecretsDealt(secrets=[rng.die(9) for _ in range(seats)], target=options.target)]


def _evolve(state: TallyState | None, event: TallyEvent) -> TallyState:
    match event:
        case SecretsDealt():
            secrets = tuple(s or 0 for s in event.secrets)
            return TallyState(secrets=secrets, target=event.target, added=(0,) * len(secrets))
        case Added():
            assert state is not None
            added = list(state.added)
            added[event.seat] += event.amount
            total = state.total + event.amount
            return msgspec.structs.replace(
                state, total=total, added=tuple(added), turn=(state.turn + 1) % len(added),
                winner=event.seat if total >= state.target else None)
        case _:
            assert_never(event)


def _check(state: TallyState, seat: int, command: TallyCommand) -> RuleViolation | None:
    """The one predicate `decide` and `legal` share."""
    if seat != state.turn or state.winner is not None:
        return RuleViolation("tally.not_your_turn", "it is not your turn")
    if isinstance(command, Add) and not 1 <= command.amount <= 3:
        return RuleViolation("tally.bad_amount", "add 1, 2 or 3")
    return None


def _decide(state: TallyState, seat: int, command: TallyCommand, rng: Rng) -> list[TallyEvent]:
    require(_check(state, seat, command))
    match command:
        case Add(amount=amount):
            return [Added(seat=seat, amount=amount)]
        case Roll():
            return [Added(seat=seat, amount=rng.die(6), rolled=True)]
        case _:
            assert_never(command)


def _legal(state: TallyState, seat: int) -> list[TallyCommand]:
    return offered([Add(1), Add(2), Add(3), Roll()], lambda c: _check(state, seat, c))


def _to_act(state: TallyState) -> frozenset[int]:
    return frozenset() if state.winner is not None else frozenset({state.turn})


def _view(state: TallyState, seat: int | None) -> TallyView:
    return TallyView(seat=seat, phase="over" if state.winner is not None else "play", to_act=sorted(_to_act(state)),
                     scores=list(state.added), total=state.total, target=state.target, turn=state.turn,
                     added=list(state.added), my_secret=state.secrets[seat] if seat is not None else None)


def _redact(event: TallyEvent, seat: int | None) -> TallyEvent | None:
    if isinstance(event, SecretsDealt):
        return SecretsDealt(secrets=[s if i == seat else None for i, s in enumerate(event.secrets)], target=event.target)
    return event


def _outcome(state: TallyState) -> Outcome | None:
    if state.winner is None:
        return None
    scores = [a + s for a, s in zip(state.added, state.secrets)]
    keys = [(1 if i == state.winner else 0, scores[i]) for i in range(len(scores))]
    return ranked(scores, keys)


TALLY = Game(
    kind="tally", title="Tally (test game)", min_players=2, max_players=4,
    codes={"tally.not_your_turn": "another seat must act", "tally.bad_amount": "add 1, 2 or 3",
           "tally.bad_options": "target must be 3..1000"},
    options_type=TallyOptions, command_type=TallyCommand, event_type=TallyEvent, state_type=TallyState,
    view_type=TallyView, components={"die": {"sides": 6}, "secrets": {"sides": 9}},
    setup=_setup, evolve=_evolve, decide=_decide, legal=_legal, to_act=_to_act, view=_view, redact=_redact,
    outcome=_outcome)
