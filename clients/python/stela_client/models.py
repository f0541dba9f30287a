"""Typed models of what the API sends: msgspec Structs decoded straight from the response bytes.

Names follow `openapi/openapi.json` (`Game` is its `GameOut`, `Event` its `Event` envelope, ...); a test
in the repository checks every field here against the document. Unknown fields are ignored, so a newer
server's additions do not break an older client. Commands and views differ per kind: they stay JSON
objects (`Command`, `View`, plain dicts), posted back unchanged; `kind`, `seat`, `phase`, `to_act` and
`scores` are in every view.

Stream frames are one tagged union (`Frame`, tag `type`), consumed with `match`: the multiplexed stream
sends all of them; a game stream yields `Snapshot` and `EventFrame`, the personal stream the notices.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

Command = dict[str, Any]
View = dict[str, Any]
Status = Literal["open", "active", "finished", "aborted"]


class Model(msgspec.Struct, kw_only=True):
    """Base of every response model."""


class Player(Model):
    """A new player (`POST /v1/players`): the bearer `token` is shown this once."""

    id: str
    name: str
    token: str


class Me(Model):
    id: str
    name: str


class Ticket(Model):
    """A read-only stream ticket (`?ticket=`), valid for reconnects until `expires_at` (RFC 3339)."""

    ticket: str
    expires_at: str


class Seat(Model):
    seat: int
    player_id: str | None
    name: str | None


class Outcome(Model):
    scores: list[int]
    ranks: list[int]
    winners: list[int]
    details: dict[str, Any] = {}


class Game(Model):
    """A game as the caller may see it (`GET /v1/games/{id}`): `view` is the caller's seat view."""

    id: str
    kind: str
    options: dict[str, Any]
    status: Status
    seats: list[Seat]
    version: int
    to_act: list[int]
    your_seat: int | None
    seed_commitment: str
    view: View | None
    outcome: Outcome | None
    time_control: dict[str, Any] | None = None
    clock: dict[str, Any] | None = None


class GameItem(Model):
    """One game of a list (`GET /v1/games`; a read model, it may lag the game by a moment)."""

    id: str
    kind: str
    status: str
    seats: list[Seat]
    open_seats: int
    version: int
    to_act: list[int]
    winners: list[int] | None
    created_at: str
    updated_at: str


class GamePage(Model):
    items: list[GameItem]
    next_cursor: str | None


class PlayerGame(Model):
    game_id: str
    kind: str
    name: str
    seat: int
    status: str
    score: int | None
    rank: int | None
    won: bool | None
    created_at: str
    ended_at: str | None


class PlayerGamePage(Model):
    player_id: str
    items: list[PlayerGame]
    next_cursor: str | None


class Legal(Model):
    """The caller's legal commands at `version` (each can be posted back unchanged)."""

    seat: int | None
    version: int
    commands: list[Command]


class Event(Model):
    """One event as the caller may see it."""

    version: int
    type: str
    data: dict[str, Any]
    at: str


class EventPage(Model):
    events: list[Event]
    version: int


class CommandResult(Model):
    """The answer to a command: the events it appended (as the caller may see them) and the new state;
    `legal` and `view` only when asked for with `include`."""

    version: int
    status: Status
    to_act: list[int]
    events: list[Event]
    legal: list[Command] | None = None
    view: View | None = None
    dry_run: bool = False


class PlayerInfo(Model):
    """A player as anyone may see it (`GET /v1/players/{id}`)."""

    id: str
    name: str
    created_at: str


class TokenInfo(Model):
    """One of the caller's tokens (never the token itself): a sign-in `session`, a `personal` access
    token or an app's (`oauth`, with its `client_id`)."""

    id: str
    kind: Literal["session", "personal", "oauth"]
    name: str
    scopes: list[str]
    client_id: str | None
    created_at: str
    expires_at: str | None


class TokenCreated(TokenInfo):
    """A new personal access token: the bearer `token` is shown this once."""

    token: str


class Session(TokenCreated):
    """A password sign-in (`POST /v1/sessions`): a session token with every scope."""

    player_id: str


class Login(Model):
    """The answer to setting a password: the `login` to sign in with and how many other tokens ended."""

    login: str
    ended_tokens: int = 0


class App(Model):
    """A registered OAuth app (a public client: no secret)."""

    client_id: str
    name: str
    redirect_uris: list[str]
    scopes: list[str]


class AuthorizedApp(Model):
    """An app the caller let act for them, since when and with which scopes."""

    client_id: str
    name: str
    scopes: list[str]
    since: str


class Consent(Model):
    """What the consent page shows of an authorization request."""

    client_id: str
    name: str
    redirect_uri: str
    scopes: list[str]


class Redirect(Model):
    """Where the consent page sends the browser (the app's redirect URI with `code` and `state`)."""

    redirect_to: str


class OAuthTokens(Model):
    """The token endpoint's answer: a bearer `access_token` (`expires_in` seconds) and the `refresh_token`
    that rotates it (each refresh answers a new one; the old one is spent)."""

    access_token: str
    refresh_token: str
    expires_in: int
    scope: str
    token_type: str


class Health(Model):
    status: Literal["ok", "degraded", "unavailable"]
    checks: dict[str, str] = {}
    details: dict[str, Any] = {}


class Problem(Model):
    """An RFC 9457 problem document (the exceptions carry it whole, as a dict)."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    instance: str | None = None
    current_version: int | None = None
    errors: list[dict[str, Any]] | None = None


# ------------------------------------------------------------------------------------------ stream frames


class Frame(msgspec.Struct, kw_only=True, tag_field="type"):
    """Base of the stream frames (the `type` field is the tag)."""

    @property
    def type(self) -> str:
        """The frame's `type` on the wire (`snapshot`, `turn`, `game.your_turn`, ...)."""
        return str(self.__struct_config__.tag)


class Snapshot(Frame, tag="snapshot"):
    """A game as `GET /v1/games/{id}` shows it to this viewer; first for a game without a resume position."""

    game_id: str
    game: Game


class EventFrame(Frame, tag="event"):
    game_id: str
    event: Event


class Turn(Frame, tag="turn"):
    """Who must act in `game_id` at `version`; `commands` with `legal=true` when it is the viewer's turn."""

    game_id: str
    version: int
    status: Status
    to_act: list[int]
    your_seat: int | None
    your_turn: bool
    commands: list[Command] | None = None


class Ready(Frame, tag="ready"):
    """Every game has caught up: from here on the connection is live."""

    games: dict[str, int]
    personal: int | None = None


class End(Frame, tag="end"):
    """The server is closing the connection (`closing`, `revoked`, `lagging`); the client reconnects."""

    reason: str


class Notice(Frame):
    """A personal notice about one of the caller's games."""

    game_id: str
    kind: str
    status: Status
    version: int
    to_act: list[int]
    your_turn: bool
    outcome: Outcome | None = None
    commands: list[Command] | None = None


class GameState(Notice, tag="game.state"):
    """On connect (and reconnect): one per open or active game; also a game joined later."""


class GameStarted(Notice, tag="game.started"):
    pass


class YourTurn(Notice, tag="game.your_turn"):
    pass


class GameEnded(Notice, tag="game.ended"):
    pass


GameFrame = Snapshot | EventFrame
NoticeFrame = GameState | GameStarted | YourTurn | GameEnded
AnyFrame = Snapshot | EventFrame | Turn | Ready | End | GameState | GameStarted | YourTurn | GameEnded
