"""Competitions in the service: the one competition model of the domain (`domain.tournament.competition`:
Swiss, round robin, single elimination, duplicate and arena as formats) as aggregates with their own
streams (`<family>-<uuid>`: `tournament-` for the formats of rounds, `arena-` for the arena, the
domain's id being the bare UUID) in the event store of the games, run by the one command loop.

`DeciderCodec` shows a format family to the repository and the loop as a `Codec` (one fold and one
wire codec for every format; only the state's type differs); `CompetitionRepository` holds the streams
of one family. `Competition` is the service of one family, subclassed by `Tournaments` and `Arenas`
for what is their own (creation checks, registration, berserk): it loads a competition, decides a
command for a caller or for the platform through the format (`act`; refusals with a code of
`forbidden` are 403s) and reads its events; `redacted` shows a stored event to any reader and
`verify_competition` audits a whole log, whatever the format. A decision
that pairs players writes each of its games already seated and started (`new_games`) by the same
append as the pairing (`EventStore.append(games=...)`, one transaction: a reader never sees a
pairing whose games do not exist, and a crash leaves neither half); the new games are then held
in the game repository and handed to the fan-out.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Generic, Literal, NamedTuple, TypeVar

import msgspec

import domain.tournament.competition as C
from domain.kernel import RuleViolation
from domain.tournament.audit import AuditReport
from service.commands.exceptions import Forbidden, NotFound, Unauthorized
from service.commands.loop import Command, CommandLoop, Policy, fingerprint
from service.commands.pipeline import now_ms
from service.commands.players import Viewer, display_name
from service.commands.publishing import Publisher
from service.commands.repository import Codec, GameRepository, Loaded, Repository
from service.store.protocol import EventStore, Metadata, NewEvent, NewGame, Player, StoredEvent, new_command_id

S = TypeVar("S")
Decide = Callable[[S, "str | None", bool], list[Any]]  # (state, actor or None for the platform, admin) -> events
Pairings = Callable[[S, list[Any], dict[str, Any]], list[NewGame]]  # (state after, events, started) -> games


class Decision(NamedTuple, Generic[S]):
    """A command's appended decision: the state it was decided on, the events decided, the state after them."""

    before: S
    events: list[Any]
    after: S


class DeciderCodec(Generic[S]):
    """A format family of the one competition model as the repository and the command loop see a decider
    (a `Codec`): the model's fold and wire codec, the family's name and state type."""

    def __init__(self, format_: C.Format) -> None:
        self.kind = format_.family
        self.fold: Callable[..., S] = C.fold
        self.decode_event: Callable[[str, dict[str, Any]], Any] = C.decode_event
        self.event_type: Callable[[Any], str] = C.event_type
        self.event_data: Callable[[Any], dict[str, Any]] = C.event_data
        self._state = msgspec.json.Decoder(format_.state)

    def dump_state(self, state: S) -> bytes:
        return msgspec.json.encode(state)

    def load_state(self, data: bytes) -> S:
        return self._state.decode(data)


def named(command: Any) -> Any:
    """`command` with the name it gives (a competition's, an entrant's display name) checked and normalised as
    a player's name is (`players.display_name`: NFC, no control, bidi or zero-width character, something
    visible; InvalidName, 422, otherwise); an empty name stays empty (the format's own default then)."""
    name = getattr(command, "name", None)
    return msgspec.structs.replace(command, name=display_name(name)) if isinstance(name, str) and name else command


class CompetitionRepository(Repository):
    """The competitions of one kind: every stream of it has the kind's codec."""

    def __init__(self, store: EventStore, codec: Codec, snapshot_every: int = 50) -> None:
        super().__init__(store, snapshot_every)
        self.codec = codec

    async def codec_of(self, stream_id: str) -> Codec | None:
        return self.codec  # a stream that does not exist has no events: `load` finds no state and refuses

    def not_found(self, stream_id: str) -> NotFound:
        kind = self.codec.kind
        return NotFound(f"no {kind} with id {stream_id.removeprefix(kind + '-')!r}")


CODECS: dict[str, DeciderCodec[Any]] = {family: DeciderCodec(f) for family, f in C.FORMATS.items()}


class Competition(Generic[S]):
    """Creates and runs the competitions of one format family (a subclass says which) through the one
    command loop."""

    format: ClassVar[C.Format]
    codec: ClassVar[Codec]
    policy: ClassVar[Policy]
    forbidden: ClassVar[frozenset[str]]  # the refusals that are 403s

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.codec = CODECS[cls.format.family]

    def __init__(self, store: EventStore, games: GameRepository, broker: Publisher, snapshot_every: int = 50) -> None:
        self.store = store
        self.games = games
        self.broker = broker
        self.repository = CompetitionRepository(store, self.codec, snapshot_every)
        self.loop = CommandLoop(self.repository, store, broker, self.policy)

    @classmethod
    def stream_of(cls, competition_id: str) -> str:
        """The stream of the competition with the domain's id `competition_id` (`<family>-<uuid>`)."""
        return f"{cls.format.family}-{competition_id}"

    async def load(self, competition_id: str) -> Loaded[S]:
        """The competition's current state: the one held here plus the events after it."""
        return await self.repository.load(self.stream_of(competition_id))

    async def events(self, competition_id: str, after: int = 0) -> tuple[S, list[StoredEvent]]:
        """The competition and its stored events after version `after` (read them through the kind's `redacted`)."""
        loaded = await self.load(competition_id)
        return loaded.state, await self.store.read_stream(self.stream_of(competition_id), after=after)

    async def open(self, organiser: Player, competition_id: str, command: Any, events: list[Any]) -> S:
        """Write a new competition's first events, `command` recorded as their cause."""
        meta = Metadata(actor=organiser.id, command=msgspec.to_builtins(command))
        return (await self.loop.open(self.stream_of(competition_id), self.codec, events, meta)).state

    @contextlib.contextmanager
    def refusing(self) -> Iterator[None]:
        """A refusal with a code of `forbidden` leaves as `Forbidden` (a 403); any other as it is."""
        try:
            yield
        except RuleViolation as exc:
            if exc.code in self.forbidden:
                raise Forbidden(exc.message) from exc
            raise

    async def act(self, viewer: Viewer | None, competition_id: str, command: Any, key: str | None = None) -> S:
        """Decide `command` for the caller (None: the platform) through the competition's format and append
        it, with the games of any pairing it makes (`paired_games`); retried on a stale state. `key`: an
        idempotency key, as for game commands."""
        command = named(command)
        return await self.run(viewer, competition_id, command,
                              lambda state, actor, admin: self.format.decide(state, actor, command, admin),
                              self.paired_games, key)

    async def decided(self, viewer: Viewer, competition_id: str, command: Any) -> Decision[S]:
        """Decide `command` for the caller as `act` does, and keep the decision that was appended: the state it
        was decided on (a retry on a stale state decides again and replaces it), its events and the state
        after them, so an answer can name the player the recorded events are about."""
        command = named(command)
        kept: list[tuple[S, list[Any]]] = []

        def decide(state: S, actor: str | None, admin: bool) -> list[Any]:
            events = self.format.decide(state, actor, command, admin)
            kept[:] = [(state, events)]
            return events

        after = await self.run(viewer, competition_id, command, decide, self.paired_games)
        before, events = kept[0]
        return Decision(before, events, after)

    async def platform(self, competition_id: str, command: Any) -> S:
        """A command of the platform (a result, a pairing, the close)."""
        return await self.act(None, competition_id, command)

    async def check(self, viewer: Viewer, competition_id: str, command: Any) -> None:
        """Raise the refusal `act` would raise for `command` now, appending nothing (a dry run)."""
        state = (await self.load(competition_id)).state
        with self.refusing():
            self.format.decide(state, viewer.player_id, command, viewer.admin)

    def paired_games(self, state: S, events: list[Any], started: dict[str, Any]) -> list[NewGame]:
        """The games of the pairings among `events` (`new_games`); a subclass says where its format lists them."""
        raise NotImplementedError

    async def run(self, viewer: Viewer | None, competition_id: str, command: Any, decide: Decide[S],
                  pairings: Pairings[S], key: str | None = None) -> S:
        """Decide `command` for the caller (None: the platform) and append it with the games `pairings` gives
        for its events; retried on a stale state. `key`: an idempotency key, as for game commands."""
        actor = viewer.player_id if viewer is not None else None
        admin = viewer.admin if viewer is not None else False
        if viewer is not None and actor is None and not admin:
            raise Unauthorized("a bearer token is required")

        def decided(_: Any, state: S) -> list[Any]:
            with self.refusing():
                return decide(state, actor, admin)

        started: dict[str, Any] = {}  # each new game's folded state, remembered once the pairing is written
        body = msgspec.to_builtins(command)
        print_ = fingerprint(self.codec.kind, competition_id, actor, body) if key else None
        ran = await self.loop.run(Command(stream_id=self.stream_of(competition_id), decide=decided, actor=actor,
                                          body=body, key=key, fingerprint=print_,
                                          games=lambda state, events: pairings(state, events, started)))
        if ran.created:
            await self._announce(ran.loaded.state, ran.created, started)
        return ran.loaded.state

    async def _announce(self, state: Any, created: dict[str, list[StoredEvent]], started: dict[str, Any]) -> None:
        """A pairing's new games, held in the game repository and handed to the fan-out."""
        table = self.games.table(state.settings.kind)
        for game_id, stored in created.items():
            self.games.remember(game_id, Loaded(table, started[game_id], stored[-1].hash))
            await self.broker.publish(game_id, stored)
        self.announced(state, len(created))

    def announced(self, state: S, games: int) -> None:
        """Told after a pairing's `games` were written and announced (for the log)."""

    def new_games(self, settings: Any, owner: str, link: Literal["tournament", "arena"],
                  paired: list[tuple[str, str | None, list[tuple[str, str]], int]],
                  started: dict[str, Any]) -> list[NewGame]:
        """The games of a pairing, each (game id, seed in hex, its players' (id, name) by seat, its round or
        number) of the competition `owner` with these `settings`: created, seated and started now, as new
        streams; each game's state put in `started`."""
        table = self.games.table(settings.kind)
        games = []
        for game_id, seed, players, number in paired:
            created = table.create(settings.options, len(players), bytes.fromhex(seed or ""),
                                   created_by=settings.organiser, time_control=settings.time_control or None)
            game = table.fold(created)
            batches = [(created, Metadata(actor=settings.organiser, to_act=[]))]
            for seat, (pid, name) in enumerate(players):
                joined = table.join(game, pid, name, seat)
                game = table.fold(joined, game)
                batches.append((joined, Metadata(actor=pid, command_id=new_command_id(), to_act=[])))
            begun = table.start(game, None, now_ms())
            game = table.fold(begun, game)
            batches.append((begun, Metadata(actor=settings.organiser, command_id=new_command_id(),
                                            to_act=table.to_act(game))))
            games.append(NewGame(game_id=game_id, kind=settings.kind, tournament_id=owner, round=number, link=link,
                                 batches=[([NewEvent(table.event_type(e), table.event_data(e)) for e in evs], meta)
                                          for evs, meta in batches]))
            started[game_id] = game
        return games


def redacted(state: Any, event: StoredEvent) -> dict[str, Any]:
    """A stored competition event on the wire as any reader may see it now (`C.shown`: seeds hidden until the
    end, a sealed duplicate deal's results until the deal is open), under its current tag: an older arena log's
    `arena.PlayerLeft` reads as the shared `tournament.PlayerWithdrew` (the stored bytes stay as written).
    With its `stream_id` (what the transparency log names it by) and, once the competition has ended (nothing
    hidden: a hash over a hidden small result could be guessed), its chain's `prev_hash` and `hash`, the
    fields of a game's export, so a client recomputes the chain and its log's leaves (`stela verify --log`)."""
    shown = C.shown(state, C.decode_event(event.type, event.data))
    out = {"version": event.version, "type": C.event_type(shown), "data": C.event_data(shown),
           "at": event.at.isoformat(), "stream_id": event.stream_id}
    return {**out, "prev_hash": event.prev_hash, "hash": event.hash} if C.finished(state) else out


def verify_competition(events: list[tuple[str, dict[str, Any]]]) -> AuditReport:
    """Re-derive a finished competition of any format from its (type, data) events, as stored or as its
    `/events` shows them after the end: pairings, draws, results, points and the final order."""
    return C.verify([C.decode_event(type_, data) for type_, data in events])
