"""What tournaments and arenas share in the service: each is a competition, an aggregate of its own
kind with its own streams (`<kind>-<uuid>`, the domain's id being the bare UUID) in the event store
of the games, decided by a pure module of the domain and run by the one command loop.

`DeciderCodec` shows such a module to the repository and the loop as a `Codec`;
`CompetitionRepository` holds the streams of one kind. `Competition` is the service of one kind,
subclassed by `Tournaments` and `Arenas`: it loads a competition, runs a command for a caller or
for the platform (refusals with a code of `forbidden` are 403s) and reads its events. A decision
that pairs players writes each of its games already seated and started (`new_games`) by the same
append as the pairing (`EventStore.append(games=...)`, one transaction: a reader never sees a
pairing whose games do not exist, and a crash leaves neither half); the new games are then held
in the game repository and handed to the fan-out.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Generic, Literal, TypeVar

import msgspec

from domain.kernel import RuleViolation
from service.commands.exceptions import Forbidden, NotFound, Unauthorized
from service.commands.loop import Command, CommandLoop, Policy, fingerprint
from service.commands.pipeline import now_ms
from service.commands.players import Viewer
from service.commands.publishing import Publisher
from service.commands.repository import Codec, GameRepository, Loaded, Repository
from service.store.protocol import EventStore, Metadata, NewEvent, NewGame, Player, StoredEvent, new_command_id

S = TypeVar("S")
Decide = Callable[[S, "str | None", bool], list[Any]]  # (state, actor or None for the platform, admin) -> events
Pairings = Callable[[S, list[Any], dict[str, Any]], list[NewGame]]  # (state after, events, started) -> games


class DeciderCodec(Generic[S]):
    """A competition's decider module (its `fold`, `decode_event`, `event_type`, `event_data`) and state
    type as the repository and the command loop see a decider (a `Codec`)."""

    def __init__(self, kind: str, decider: Any, state: type[S]) -> None:
        self.kind = kind
        self.fold: Callable[..., S] = decider.fold
        self.decode_event: Callable[[str, dict[str, Any]], Any] = decider.decode_event
        self.event_type: Callable[[Any], str] = decider.event_type
        self.event_data: Callable[[Any], dict[str, Any]] = decider.event_data
        self._state = msgspec.json.Decoder(state)

    def dump_state(self, state: S) -> bytes:
        return msgspec.json.encode(state)

    def load_state(self, data: bytes) -> S:
        return self._state.decode(data)


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


class Competition(Generic[S]):
    """Creates and runs the competitions of one kind (a subclass says which) through the one command loop."""

    codec: ClassVar[Codec]
    policy: ClassVar[Policy]
    forbidden: ClassVar[frozenset[str]]  # the refusals that are 403s

    def __init__(self, store: EventStore, games: GameRepository, broker: Publisher, snapshot_every: int = 50) -> None:
        self.store = store
        self.games = games
        self.broker = broker
        self.repository = CompetitionRepository(store, self.codec, snapshot_every)
        self.loop = CommandLoop(self.repository, store, broker, self.policy)

    def stream_of(self, competition_id: str) -> str:
        return f"{self.codec.kind}-{competition_id}"

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
