"""The contract every game of the catalogue owes, checked the same way for each kind.

Random legal play over every option value and seat count (no contract breach, the game's own
invariants after every step); every view and redacted event validated against the published
schema; snapshots round-trip; codes and options documented; and a fuzz test that `legal` and
`decide` agree exactly: at random positions, commands generated from the kind's command schema
are accepted by `decide` exactly when `legal` offers them, and any other command is a documented
RuleViolation, never another exception. A new game is covered by adding it to the catalogue.
"""

from __future__ import annotations

import os
import typing
from collections import defaultdict
from typing import Any

import jsonschema_rs
import msgspec
import pytest

from domain.catalog import GAMES
from domain.kernel import Rng, RuleViolation, View
from domain.simulate import play_random, start_table
from domain.table import TABLE_EVENTS, Table, TableState
from tests.budget import sized

GAMES_PER_CASE = int(os.environ.get("STELA_RANDOM_GAMES", sized(2, 6)))  # tests/budget.py; the variable wins
KINDS = sorted(GAMES)


def option_variants(game: Any) -> list[dict[str, Any]]:
    """The default options, then each option field set to each of its other finite values.

    A value that fits no seat count alone (it needs another option) is paired with the first
    other value that makes it playable.
    """
    singles: list[dict[str, Any]] = []
    for field in msgspec.structs.fields(game.options_type):
        kind = field.type
        while typing.get_origin(kind) is typing.Annotated:
            kind = typing.get_args(kind)[0]
        values: tuple[Any, ...] = ()
        if kind is bool:
            values = (True, False)
        elif typing.get_origin(kind) is typing.Literal:
            values = typing.get_args(kind)
        singles += [{field.encode_name: v} for v in values if v != field.default]
    variants: list[dict[str, Any]] = [{}]
    for single in singles:
        if playable_seats(game, single):
            variants.append(single)
            continue
        paired = next((p for other in singles if other.keys() != single.keys()
                       for p in [{**other, **single}] if playable_seats(game, p)), None)
        assert paired is not None, f"{game.kind}: option {single} fits no game"
        variants.append(paired)
    return variants


def cases() -> list[Any]:
    out = []
    for kind in KINDS:
        game = GAMES[kind]
        for options in option_variants(game):
            label = ",".join(f"{k}={v}" for k, v in options.items()) or "default"
            out.append(pytest.param(kind, options, id=f"{kind}-{label}"))
    return out


def playable_seats(game: Any, options: dict[str, Any]) -> list[int]:
    """Seat counts these options accept (setup refuses the others with bad_options)."""
    table = Table(game)
    fits = []
    for seats in range(game.min_players, game.max_players + 1):
        try:
            table.parse_options(options, seats)
        except RuleViolation:
            continue
        fits.append(seats)
    return fits


class Checker:
    """Validates every position of a random game: views (as the table serves them), redacted events and
    snapshots."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.table = Table(game)
        # the schemas GET /v1/kinds/{kind} publishes as view_schema and event_schema
        self.view_schema = jsonschema_rs.Draft202012Validator(msgspec.json.schema(game.view_type))
        self.event_schema = jsonschema_rs.Draft202012Validator(msgspec.json.schema(self.table.event_union))
        self.view_decoder = msgspec.json.Decoder(game.view_type)
        self.event_decoder = msgspec.json.Decoder(self.table.event_union)
        self.steps = 0

    def __call__(self, state: TableState, new: list[Any]) -> None:
        self.steps += 1
        game = self.game
        for seat in [None, *range(state.seat_count)]:
            view = self.table.view(state, seat)  # as served: the game's view with the last action described
            assert isinstance(view, game.view_type) and isinstance(view, View)
            assert view.seat == seat
            assert view.to_act == sorted(game.to_act(state.game)) or state.status != "active"
            assert len(view.scores) == state.seat_count
            encoded = msgspec.json.encode(view)
            self.view_decoder.decode(encoded)
            self.view_schema.validate(msgspec.json.decode(encoded))
            for event in new:
                shown = self.table.redact(event, seat, public=False)
                if shown is not None:
                    wire = msgspec.json.encode(shown)
                    self.event_decoder.decode(wire)
                    self.event_schema.validate(msgspec.json.decode(wire))
        if self.steps % 10 == 1 or state.status != "active":
            assert self.table.load_state(self.table.dump_state(state)) == state


@pytest.mark.slow  # random whole games; tests/domain/test_playthroughs.py replays one per variant in the fast tier
@pytest.mark.parametrize(("kind", "options"), cases())
def test_random_legal_play_keeps_the_contract(kind: str, options: dict[str, Any]) -> None:
    game = GAMES[kind]
    seats_options = playable_seats(game, options)
    assert seats_options, f"no seat count accepts {options}"
    for n in range(max(GAMES_PER_CASE, len(seats_options))):
        seats = seats_options[n % len(seats_options)]
        checker = Checker(game)
        # the checker encodes, decodes and validates every view and redacted event, so play_random's own
        # encode-only pass over them (check_views) would do the same work again
        played = play_random(Table(game), options, seats, f"{kind}-{options}-{n}".encode(), check_views=False,
                             on_step=checker)
        assert played.error is None, played.error
        assert played.capped or played.outcome is not None


# -- fuzzing legal against decide --------------------------------------------------------------

def plain(value: Any) -> Any:
    """`value` as plain JSON data (lists, dicts, scalars)."""
    return msgspec.json.decode(msgspec.json.encode(value))


def scalars(value: Any, key: str, pool: dict[str, set[Any]]) -> None:
    """Collect every scalar in a JSON value, under its field name and under "*"."""
    if isinstance(value, dict):
        for k, v in value.items():
            scalars(v, k, pool)
    elif isinstance(value, list):
        for v in value:
            scalars(v, key, pool)
        if all(not isinstance(v, (dict, list)) for v in value):
            pool.setdefault("[]" + key, set()).add(tuple(value))
    elif value is not None:
        pool.setdefault(key, set()).add(value)
        pool.setdefault("*", set()).add(value)


class CommandMaker:
    """Commands built from the kind's command schema, biased towards values seen in the position."""

    def __init__(self, game: Any, bot: Rng) -> None:
        info = msgspec.inspect.type_info(game.command_type)
        self.variants = list(info.types) if isinstance(info, msgspec.inspect.UnionType) else [info]
        self.bot = bot

    def pick(self, items: list[Any]) -> Any:
        return items[self.bot.below(len(items))]

    def value(self, t: Any, name: str, pool: dict[str, set[Any]]) -> Any:
        bot, seen = self.bot, sorted(pool.get(name, ()), key=repr)
        if isinstance(t, msgspec.inspect.LiteralType):
            return self.pick(list(t.values))
        if isinstance(t, msgspec.inspect.BoolType):
            return bot.below(2) == 1
        if isinstance(t, msgspec.inspect.NoneType):
            return None
        if isinstance(t, (msgspec.inspect.IntType, msgspec.inspect.FloatType)):
            ints = [v for v in seen if isinstance(v, int) and not isinstance(v, bool)]
            anywhere = [v for v in sorted(pool.get("*", ()), key=repr) if isinstance(v, int) and not isinstance(v, bool)]
            choices = ints * 4 + anywhere[:40] + [-1, 0, 1, 2, 3, 5]
            return self.pick(choices)
        if isinstance(t, msgspec.inspect.StrType):
            strs = [v for v in seen if isinstance(v, str)]
            anywhere = [v for v in sorted(pool.get("*", ()), key=repr) if isinstance(v, str)]
            return self.pick(strs * 4 + anywhere[:40] + ["", "x"])
        if isinstance(t, msgspec.inspect.UnionType):
            return self.value(self.pick(list(t.types)), name, pool)
        if isinstance(t, (msgspec.inspect.ListType, msgspec.inspect.VarTupleType, msgspec.inspect.SetType,
                          msgspec.inspect.FrozenSetType)):
            lists = sorted(pool.get("[]" + name, ()), key=repr)
            if lists and bot.below(2) == 0:
                return list(self.pick(lists))
            return [self.value(t.item_type, name, pool) for _ in range(bot.below(4))]
        if isinstance(t, msgspec.inspect.TupleType):
            return [self.value(item, name, pool) for item in t.item_types]
        if isinstance(t, msgspec.inspect.StructType):
            return self.struct(t, pool)
        if isinstance(t, msgspec.inspect.DictType):
            return {}
        return None

    def struct(self, t: msgspec.inspect.StructType, pool: dict[str, set[Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if t.tag_field is not None:
            out[t.tag_field] = t.tag
        for field in t.fields:
            if not field.required and self.bot.below(4) == 0:
                continue
            out[field.encode_name] = self.value(field.type, field.encode_name, pool)
        return out

    def mutate(self, command: dict[str, Any], pool: dict[str, set[Any]]) -> dict[str, Any]:
        variant = next((v for v in self.variants if v.tag == command.get("type")), None)
        if variant is None or not variant.fields:
            return self.struct(self.pick(self.variants), pool)
        field = self.pick(list(variant.fields))
        return {**command, field.encode_name: self.value(field.type, field.encode_name, pool)}


def fuzz_position(game: Any, table: Table, state: TableState, maker: CommandMaker, per_seat: int,
                  codes_seen: set[str]) -> int:
    """Check legal == accepted by decide at `state` for every seat; returns commands tried."""
    legal = {seat: table.legal(state, seat) for seat in range(state.seat_count)}
    pool: dict[str, set[Any]] = {}
    scalars(plain(game.view(state.game, None)), "view", pool)
    wire = {seat: [plain(c) for c in cs] for seat, cs in legal.items()}
    for cs in wire.values():
        for c in cs:
            scalars(c, "command", pool)
    every = [c for cs in wire.values() for c in cs]
    tried = 0
    for seat in range(state.seat_count):
        offered = {msgspec.json.encode(c) for c in legal[seat]}
        scalars(plain(game.view(state.game, seat)), "view", pool)
        for _ in range(per_seat):
            raw = maker.mutate(maker.pick(every), pool) if every and maker.bot.below(3) else \
                maker.struct(maker.pick(maker.variants), pool)
            try:
                command = table.decode_command(raw)
            except msgspec.ValidationError:
                continue  # the HTTP edge refuses it before the rules see it
            tried += 1
            key = msgspec.json.encode(command)
            try:
                events = game.decide(state.game, seat, command, Rng(b"fuzz", state.version))
            except RuleViolation as exc:
                codes_seen.add(exc.code)
                assert exc.code in game.codes, f"undocumented code {exc.code}"
                assert key not in offered, f"seat {seat}: legal offers {key!r} but decide refuses: {exc}"
            else:
                assert key in offered or spelling_of_offered(game, state, seat, legal[seat], events), \
                    f"seat {seat}: decide accepts {key!r} but legal offers no command with its events"
    return tried


def spelling_of_offered(game: Any, state: TableState, seat: int, offered: list[Any], events: list[Any]) -> bool:
    """Whether an accepted command not in `legal` is another spelling of an offered choice: the same
    events as an offered command (an unnamed piece taking the documented default, a colour multiset
    in another order); `legal` lists each choice once, `decide` also takes the other spellings."""
    wanted = msgspec.json.encode(events)
    return any(msgspec.json.encode(game.decide(state.game, seat, c, Rng(b"fuzz", state.version))) == wanted
               for c in offered)


@pytest.mark.slow  # a fuzzer: whole random games, then mutated commands at 40 positions of each
@pytest.mark.parametrize("kind", KINDS)
def test_decide_accepts_exactly_what_legal_offers(kind: str) -> None:
    game = GAMES[kind]
    table = Table(game)
    codes_seen: set[str] = set()
    tried = 0
    for n, options in enumerate(option_variants(game)):
        seats = playable_seats(game, options)
        positions: list[TableState] = []

        def keep(state: TableState, _new: list[Any], positions: list[TableState] = positions) -> None:
            positions.append(state)

        play_random(table, options, seats[n % len(seats)], f"fuzz-{kind}-{n}".encode(), check_views=False,
                    on_step=keep)
        maker = CommandMaker(game, Rng(f"fuzz-{kind}-{n}".encode(), 1))
        step = max(1, len(positions) // 40)
        for state in positions[::step]:
            if state.status == "active":
                tried += fuzz_position(game, table, state, maker, 12, codes_seen)
    assert tried > 200, f"only {tried} well-formed commands were generated"
    assert len(codes_seen) > 3, codes_seen


@pytest.mark.parametrize("kind", KINDS)
def test_codes_and_options_are_documented(kind: str) -> None:
    game = GAMES[kind]
    assert game.codes, "a game documents its refusal codes"
    for code, meaning in game.codes.items():
        assert code.startswith(f"{kind}."), code
        assert meaning.strip(), code
    schema = msgspec.json.schema(game.options_type)
    props = schema["$defs"][schema["$ref"].rsplit("/", 1)[1]]["properties"] if "$ref" in schema else schema["properties"]
    for name, prop in props.items():
        assert prop.get("description"), f"option {name} has no description"


@pytest.mark.parametrize("kind", KINDS)
def test_views_components_and_events_have_published_schemas(kind: str) -> None:
    game = GAMES[kind]
    view = msgspec.json.schema(game.view_type)
    assert view, "the view has a JSON schema"
    msgspec.json.schema(game.event_type)
    msgspec.json.schema(game.command_type)
    catalogue = msgspec.to_builtins(game.components)
    assert catalogue, "the kind publishes its component catalogue"


@pytest.mark.parametrize("kind", KINDS)
def test_every_seat_count_starts_and_every_event_type_is_tagged(kind: str) -> None:
    game = GAMES[kind]
    tags: dict[str, int] = defaultdict(int)
    info = msgspec.inspect.type_info(game.event_type)
    for t in info.types:
        assert t.tag.startswith(f"{kind}."), t.tag
        tags[t.tag] += 1
    assert all(n == 1 for n in tags.values())
    assert not set(tags) & {e.__struct_config__.tag for e in TABLE_EVENTS}


@pytest.mark.parametrize("kind", KINDS)
def test_the_published_schemas_refuse_a_view_or_event_that_breaks_them(kind: str) -> None:
    """The schemas random play validates against are not vacuous: a view without the envelope's `to_act`,
    with a seat that is not a number, or an event of an unknown type, fails them."""
    game = GAMES[kind]
    checker = Checker(game)
    state, events = start_table(checker.table, None, game.min_players, f"schema-{kind}".encode())
    view = plain(game.view(state.game, 0))
    checker.view_schema.validate(view)
    for broken in ({k: v for k, v in view.items() if k != "to_act"}, {**view, "seat": "zero"}):
        with pytest.raises(jsonschema_rs.ValidationError):
            checker.view_schema.validate(broken)
    event = plain(checker.table.redact(events[-1], 0, public=False))
    checker.event_schema.validate(event)
    with pytest.raises(jsonschema_rs.ValidationError):
        checker.event_schema.validate({**event, "type": f"{kind}.NoSuchEvent"})
