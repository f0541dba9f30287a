"""Every operation of the API, defined once for both clients: what to send and how to read the answer.

An operation is a method of `Api` that builds a `Call` (method, path, query, body, `Idempotency-Key`, how to
decode the answer, what to remember of it). Decorated with `op("operationId")` it becomes, on the async
`Client`, a coroutine method, and on `SyncClient` a plain one, with the same name, parameters and answer
type (the descriptor's overloads tell the type checker). `Core` holds what both clients share around a
request: the URL, the headers, the pacing, and the verdict on each answer (return it, raise its typed
error, or wait and try again, as `retry.py` says); `Client.run` and `SyncClient.run` are the only loops.

`OPERATIONS` maps each operationId of `openapi/openapi.json` to the method that performs it (a test walks
the document and fails on an operation no method covers).
"""

from __future__ import annotations

import functools
import random
import uuid
import weakref
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload
from urllib.parse import quote, urlencode

import msgspec

from stela_client import contract as c
from stela_client import models as m
from stela_client.codec import decode, encode, problem_of
from stela_client.errors import error_for
from stela_client.ratelimit import Pacer, RateLimit
from stela_client.retry import Backoff, Counters, retry_after
from stela_client.streams import ArenaStream, Follower, GameStream, MultiStream, PersonalStream, TournamentStream
from stela_client.transport import Response

T = TypeVar("T")
P = ParamSpec("P")
F = TypeVar("F", bound="Follower[Any]")
OPERATIONS: dict[str, list[str]] = {}  # operationId -> the methods (of both clients) that perform it


def path_of(*parts: str) -> str:
    """A path from segments, each percent-encoded (an id cannot smuggle a `/` or a query)."""
    return "/" + "/".join(quote(p, safe="") for p in parts)


def _key() -> str:
    return uuid.uuid4().hex


def _param(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _json(resp: Response) -> Any:
    return msgspec.json.decode(resp.body) if resp.body else None


def _bytes(resp: Response) -> bytes:
    return resp.body


def _text(resp: Response) -> str:
    return resp.body.decode()


def _nothing(resp: Response) -> None:
    return None


def _as(type: type[T]) -> Callable[[Response], T]:
    return lambda resp: decode(resp.body, type)


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request to make and how to read its answer; `after` sees the client and the answer (sign-in)."""

    method: str
    path: str
    read: Callable[[Response], T]
    params: Mapping[str, Any] | None = None
    body: Any = None
    form: Mapping[str, str | None] | None = None  # form-encoded (the OAuth endpoints)
    key: str | None = None  # Idempotency-Key
    after: Callable[[Any, T], None] | None = None


@dataclass(frozen=True)
class Prepared:
    """A request ready for a transport."""

    method: str
    url: str
    headers: dict[str, str]
    data: bytes | None
    safe: bool  # may be sent again after no answer or a 503 (a read, or a keyed write)


class Runner:
    """Base of the clients that run calls: `run` answers what the operation's caller gets."""

    def run(self, call: Call[Any]) -> Any:
        raise NotImplementedError


class AsyncRunner(Runner):
    pass


class SyncRunner(Runner):
    pass


class Operation(Generic[P, T]):
    """An operation's builder, bound on a client to a method that runs its call (see the module)."""

    def __init__(self, operation: str, build: Callable[Concatenate[Any, P], Call[T]]) -> None:
        self.operation, self.build = operation, build
        functools.update_wrapper(self, build)  # type: ignore[arg-type]

    def __set_name__(self, owner: type, name: str) -> None:
        OPERATIONS.setdefault(self.operation, []).append(name)

    @overload
    def __get__(self, obj: None, owner: type) -> Operation[P, T]: ...

    @overload
    def __get__(self, obj: AsyncRunner, owner: type) -> Callable[P, Coroutine[Any, Any, T]]: ...

    @overload
    def __get__(self, obj: SyncRunner, owner: type) -> Callable[P, T]: ...

    def __get__(self, obj: Runner | None, owner: type) -> Any:
        if obj is None:
            return self
        build, run = self.build, obj.run

        @functools.wraps(build)
        def bound(*args: P.args, **kwargs: P.kwargs) -> Any:
            return run(build(obj, *args, **kwargs))

        return bound


def op(operation: str) -> Callable[[Callable[Concatenate[Any, P], Call[T]]], Operation[P, T]]:
    """Declare the method that performs `operation` (an operationId of the OpenAPI document)."""
    return lambda build: Operation(operation, build)


def covers(*operations: str) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """Record that the decorated method (a stream, which is no `Call`) performs `operations`."""

    def mark(method: Callable[P, T]) -> Callable[P, T]:
        for operation in operations:
            OPERATIONS.setdefault(operation, []).append(method.__name__)
        return method

    return mark


@dataclass
class Core:
    """What both clients share around a request (see the module)."""

    base_url: str
    token: str | None = None
    backoff: Backoff = field(default_factory=Backoff)
    timeout: float = 30.0
    pace: bool = False
    rng: random.Random = field(default_factory=random.Random)

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/")
        self.refresh_token: str | None = None  # an app's, after `exchange_code` or `refresh`
        self.counters = Counters(rng=self.rng)
        self.rate_limit: RateLimit | None = None  # the last fields an answer carried
        self.pacer: Pacer | None = Pacer() if self.pace else None
        self.streams: weakref.WeakSet[Follower[Any]] = weakref.WeakSet()  # open ones: closed with the client

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def url(self, path: str, params: Mapping[str, Any] | None = None) -> str:
        query = {k: _param(v) for k, v in (params or {}).items() if v is not None}
        return self.base_url + path + ("?" + urlencode(query) if query else "")

    def prepare(self, call: Call[Any]) -> Prepared:
        headers = {"Accept": "application/json", **self.auth}
        if call.key is not None:
            headers["Idempotency-Key"] = call.key
        data = None
        if call.form is not None:
            data = urlencode({k: v for k, v in call.form.items() if v is not None}).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif call.body is not None:
            data = encode(call.body)
            headers["Content-Type"] = "application/json"
        safe = call.method in ("GET", "HEAD") or call.key is not None
        return Prepared(call.method, self.url(call.path, call.params), headers, data, safe)

    def pause(self) -> float:
        """Seconds to wait before sending (pacing: the known budget is spent until its window ends)."""
        return self.pacer.before(self.auth.get("Authorization")) if self.pacer is not None else 0.0

    def after_failure(self, prepared: Prepared, attempt: int) -> float | None:
        """No answer came: the seconds to wait before trying again, or None to raise."""
        if not prepared.safe or attempt >= max(self.backoff.attempts, 1):
            return None
        self.counters.transport_retries += 1
        return self.backoff.delay(attempt, None, self.counters.rng)

    def verdict(self, prepared: Prepared, resp: Response, attempt: int) -> float | None:
        """An answer came: None to keep it (2xx), seconds to wait before trying again, or its error raised."""
        limit = RateLimit.parse(resp.headers)  # only its own fields teach the pacer: old ones would undo its count
        self.rate_limit = limit or self.rate_limit
        if self.pacer is not None:
            self.pacer.told(limit, prepared.headers.get("Authorization"))
        told = retry_after(resp.headers.get("Retry-After"))
        # a Retry-After beyond `max_wait` (a sign-in throttle's 15 minutes) is the caller's to wait out or not
        retryable = (resp.status == 429 or (resp.status == 503 and prepared.safe)) and \
            (told is None or told <= self.backoff.max_wait)
        if attempt < max(self.backoff.attempts, 1) and retryable:
            self.counters.throttled += 1
            return self.backoff.delay(attempt, told, self.counters.rng)
        if resp.status >= 400:
            raise error_for(resp.status, problem_of(resp.body), told)
        return None

    def finish(self, call: Call[T], resp: Response) -> T:
        out = call.read(resp)
        if call.after is not None:
            call.after(self, out)
        return out


def _set_token(client: Core, answer: m.Player | m.Session) -> None:
    client.token = answer.token


def _use_token(client: Core, token: str) -> None:
    client.token = token


def _set_tokens(client: Core, answer: m.OAuthTokens) -> None:
    client.token, client.refresh_token = answer.access_token, answer.refresh_token


def _forget_tokens(client: Core, answer: object) -> None:
    client.token = client.refresh_token = None


def _json_call(method: str, path: str, **kw: Any) -> Call[dict[str, Any]]:
    return Call(method, path, _json, **kw)


def _given(value: Any) -> Any:
    """A keyword argument as JSON: a Struct as its fields, an iterable (not a string) as a list."""
    if isinstance(value, msgspec.Struct):
        return msgspec.to_builtins(value)
    if isinstance(value, Mapping):
        return {k: _given(v) for k, v in value.items()}
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        return [_given(v) for v in value]
    return value


def _body(type: Any, **fields: Any) -> Any:
    """The request body of the contract's `type` (a Struct of `contract.py`) from the arguments not None:
    a missing required member or a mistyped one raises `msgspec.ValidationError` before anything is sent."""
    return msgspec.convert({k: _given(v) for k, v in fields.items() if v is not None}, type)


def _view(method: str, path: str, body: Any = None) -> Call[c.TournamentView]:
    return Call(method, path, _as(c.TournamentView), body=body)


def _entrant(method: str, path: str, body: Any) -> Call[c.EntrantView]:
    return Call(method, path, _as(c.EntrantView), body=body)


def _arena_view(method: str, path: str, body: Any = None) -> Call[c.ArenaView]:
    return Call(method, path, _as(c.ArenaView), body=body)


def _arena_entrant(method: str, path: str, body: Any = None) -> Call[c.ArenaEntrantView]:
    return Call(method, path, _as(c.ArenaEntrantView), body=body)


def _tournament(tid: str, *rest: str) -> str:
    return path_of("v1", "tournaments", tid, *rest)


def _arena(aid: str, *rest: str) -> str:
    return path_of("v1", "arenas", aid, *rest)


def _game(gid: str, *rest: str) -> str:
    return path_of("v1", "games", gid, *rest)


class Api(Core):
    """The API's operations (shared by `Client` and `SyncClient`; see the module)."""

    # ------------------------------------------------------------------------------------------ players, accounts

    @op("createPlayer")
    def register(self, name: str) -> Call[m.Player]:
        """A new player; this client then acts as that player (its `token` is set)."""
        return Call("POST", "/v1/players", _as(m.Player), body={"name": name}, after=_set_token)

    @op("signIn")
    def sign_in(self, login: str, password: str) -> Call[m.Session]:
        """Sign in with a password: a session token (every scope, 30 days); this client then uses it."""
        return Call("POST", "/v1/sessions", _as(m.Session), body={"login": login, "password": password},
                    after=_set_token)

    @op("setPassword")
    def set_password(self, password: str, *, login: str | None = None, current_password: str | None = None,
                     keep_tokens: bool = False) -> Call[m.Login]:
        """Set (or change: `current_password`, or a fresh sign-in) the password; a change ends every other
        token unless `keep_tokens`. The answer's `login` is the handle to sign in with."""
        body: dict[str, Any] = {"password": password, "login": login, "current_password": current_password,
                                "keep_tokens": keep_tokens}
        return Call("POST", "/v1/players/me/password", _as(m.Login),
                    body={k: v for k, v in body.items() if v is not None})

    @op("getMe")
    def me(self) -> Call[m.Me]:
        return Call("GET", "/v1/players/me", _as(m.Me))

    @op("getPlayer")
    def player(self, player_id: str) -> Call[m.PlayerInfo]:
        return Call("GET", path_of("v1", "players", player_id), _as(m.PlayerInfo))

    @op("listPlayerGames")
    def player_games(self, player_id: str, limit: int = 50, cursor: str | None = None) -> Call[m.PlayerGamePage]:
        return Call("GET", path_of("v1", "players", player_id, "games"), _as(m.PlayerGamePage),
                    params={"limit": limit, "cursor": cursor})

    @op("rotateToken")
    def rotate_token(self) -> Call[str]:
        """A new first token for this player (the old one stops working); this client switches to it."""
        return Call("POST", "/v1/players/me/token", lambda resp: decode(resp.body, m.Player).token, after=_use_token)

    @op("revokeToken")
    def revoke_token(self) -> Call[None]:
        """End the token in use (any token may end itself); this client is anonymous after."""
        return Call("DELETE", "/v1/players/me/token", _nothing, after=_forget_tokens)

    @op("createAccessToken")
    def create_token(self, name: str, scopes: Iterable[str], *,
                     expires_in_days: int | None = None) -> Call[m.TokenCreated]:
        """A personal access token with `scopes` (`read`, `play`, `tournaments:organise`), shown this once."""
        body: dict[str, Any] = {"name": name, "scopes": list(scopes)}
        if expires_in_days is not None:
            body["expires_in_days"] = expires_in_days
        return Call("POST", "/v1/players/me/tokens", _as(m.TokenCreated), body=body)

    @op("listAccessTokens")
    def tokens(self) -> Call[list[m.TokenInfo]]:
        """Every live token but the first: sessions, personal access tokens, apps' tokens."""
        return Call("GET", "/v1/players/me/tokens", _as(list[m.TokenInfo]))

    @op("revokeAccessToken")
    def revoke_access_token(self, token_id: str) -> Call[None]:
        return Call("DELETE", path_of("v1", "players", "me", "tokens", token_id), _nothing)

    # ------------------------------------------------------------------------------------------ OAuth apps

    @op("registerApp")
    def register_app(self, name: str, redirect_uris: Iterable[str], scopes: Iterable[str]) -> Call[m.App]:
        """Register an app (a public client) owned by this player: its `client_id`."""
        return Call("POST", "/v1/oauth/apps", _as(m.App),
                    body={"name": name, "redirect_uris": list(redirect_uris), "scopes": list(scopes)})

    @op("listAuthorizedApps")
    def authorized_apps(self) -> Call[list[m.AuthorizedApp]]:
        return Call("GET", "/v1/players/me/apps", _as(list[m.AuthorizedApp]))

    @op("revokeAuthorizedApp")
    def revoke_app(self, client_id: str) -> Call[None]:
        """Every token of the app for this player stops working."""
        return Call("DELETE", path_of("v1", "players", "me", "apps", client_id), _nothing)

    @op("getAuthorizationServerMetadata")
    def oauth_metadata(self) -> Call[dict[str, Any]]:
        """RFC 8414 metadata: `issuer`, `authorization_endpoint`, `token_endpoint`, `revocation_endpoint`..."""
        return _json_call("GET", "/.well-known/oauth-authorization-server")

    @op("describeAuthorization")
    def describe_authorization(self, query: str) -> Call[m.Consent]:
        """What a consent page shows of an authorization request (its query string, unchanged)."""
        return Call("GET", "/v1/oauth/authorize?" + query.lstrip("?"), _as(m.Consent))

    @op("decideAuthorization")
    def decide_authorization(self, query: str, allow: bool) -> Call[m.Redirect]:
        """The signed-in player's answer to an authorization request: where to send the browser."""
        return Call("POST", "/v1/oauth/authorize", _as(m.Redirect), body={"request": query.lstrip("?"),
                                                                          "allow": allow})

    @op("oauthToken")
    def exchange_code(self, client_id: str, code: str, redirect_uri: str, verifier: str) -> Call[m.OAuthTokens]:
        """An app's code and PKCE verifier for tokens; this client then uses the access token (and keeps
        the refresh token in `refresh_token`)."""
        return Call("POST", "/oauth/token", _as(m.OAuthTokens), after=_set_tokens, form={
            "grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "client_id": client_id,
            "code_verifier": verifier})

    @op("oauthToken")
    def refresh(self, client_id: str, refresh_token: str | None = None) -> Call[m.OAuthTokens]:
        """New tokens for the refresh token (this client's own unless given): the old one is spent (rotation)."""
        return (Call("POST", "/oauth/token", _as(m.OAuthTokens), after=_set_tokens, form={
            "grant_type": "refresh_token", "refresh_token": refresh_token or self.refresh_token,
            "client_id": client_id}))

    @op("oauthRevoke")
    def revoke_grant(self, client_id: str, token: str | None = None,
                     token_type_hint: str | None = None) -> Call[None]:
        """RFC 7009: end the grant `token` (this client's refresh token unless given) belongs to; the
        player's other grants to the app (other devices) keep working. Logging out, for an app."""
        chosen = token or self.refresh_token or self.token
        hint = token_type_hint or ("refresh_token" if chosen == self.refresh_token else "access_token")
        forget = _forget_tokens if chosen in (self.token, self.refresh_token) else None
        return Call("POST", "/oauth/revoke", _nothing, after=forget,
                    form={"token": chosen, "token_type_hint": hint, "client_id": client_id})

    # ------------------------------------------------------------------------------------------ kinds, games

    @op("listKinds")
    def kinds(self) -> Call[list[c.KindOut]]:
        """Every kind with its option, command, event and view schemas and rule-violation codes."""
        return Call("GET", "/v1/kinds", _as(list[c.KindOut]))

    @op("getKind")
    def kind(self, kind: str) -> Call[c.KindOut]:
        return Call("GET", path_of("v1", "kinds", kind), _as(c.KindOut))

    @op("getKindComponents")
    def kind_components(self, kind: str) -> Call[dict[str, Any]]:
        """The kind's board components (what a front end draws)."""
        return _json_call("GET", path_of("v1", "kinds", kind, "components"))

    @op("createGame")
    def create_game(self, kind: str, seats: int, options: Mapping[str, Any] | msgspec.Struct | None = None, *,
                    join: bool = True, time_control: Mapping[str, Any] | None = None,
                    bots: Iterable[Mapping[str, Any]] | None = None, key: str | None = None) -> Call[m.Game]:
        """A new game; `bots` (`[{"strategy": "greedy", "strength": 3}]`) fill the seats after the creator."""
        chosen = msgspec.to_builtins(options) if isinstance(options, msgspec.Struct) else dict(options or {})
        body: dict[str, Any] = {"kind": kind, "seats": seats, "options": chosen, "join": join}
        if time_control:
            body["time_control"] = dict(time_control)
        if bots is not None:
            body["bots"] = [dict(b) for b in bots]
        return Call("POST", "/v1/games", _as(m.Game), body=body, key=key or _key())

    @op("listGames")
    def games(self, *, kind: str | None = None, status: str | None = None, player: str | None = None,
              open_seats: bool | None = None, limit: int | None = None, cursor: str | None = None) -> Call[m.GamePage]:
        """One page of the game list (a read model: a game shows up a moment after it changed)."""
        return Call("GET", "/v1/games", _as(m.GamePage), params={
            "kind": kind, "status": status, "player": player, "open_seats": open_seats, "limit": limit,
            "cursor": cursor})

    @op("getGame")
    def game(self, game_id: str, *, min_version: int | None = None) -> Call[m.Game]:
        return Call("GET", _game(game_id), _as(m.Game), params={"min_version": min_version})

    @op("getGameAtVersion")
    def game_at(self, game_id: str, version: int, *, seat: int | None = None) -> Call[m.Game]:
        """The game as it was at `version` (a seat's view of it with `seat`, as far as the caller may see)."""
        return Call("GET", _game(game_id, "versions", str(version)), _as(m.Game), params={"seat": seat})

    @op("getBoardPicture")
    def board_svg(self, game_id: str) -> Call[bytes]:
        return Call("GET", _game(game_id, "board.svg"), _bytes)

    @op("joinGame")
    def join(self, game_id: str, seat: int | None = None, *, key: str | None = None) -> Call[m.Game]:
        return Call("POST", _game(game_id, "join"), _as(m.Game), body={"seat": seat}, key=key or _key())

    @op("leaveGame")
    def leave(self, game_id: str, *, key: str | None = None) -> Call[m.Game]:
        return Call("POST", _game(game_id, "leave"), _as(m.Game), key=key or _key())

    @op("startGame")
    def start(self, game_id: str, *, key: str | None = None) -> Call[m.Game]:
        return Call("POST", _game(game_id, "start"), _as(m.Game), key=key or _key())

    @op("getLegalCommands")
    def legal(self, game_id: str, *, min_version: int | None = None) -> Call[m.Legal]:
        return Call("GET", _game(game_id, "legal"), _as(m.Legal), params={"min_version": min_version})

    @op("sendCommand")
    def command(self, game_id: str, command: Mapping[str, Any] | msgspec.Struct, expected_version: int | None = None,
                *, key: str | None = None, include: Iterable[str] = (), dry_run: bool = False) -> Call[m.CommandResult]:
        """Post one command as decided at `expected_version` (a different version: `VersionConflict`).

        The `Idempotency-Key` (`key`, else a fresh one) makes a retry after a lost answer safe: the
        server replays the first result. `include` asks for `"legal"` and/or `"view"` after the command.
        `command` is a JSON object (as `legal` lists them) or a typed command of `stela_client.kinds`.
        """
        sent = command if isinstance(command, msgspec.Struct) else dict(command)
        params = {"include": ",".join(include) or None, "dry_run": True if dry_run else None}
        return Call("POST", _game(game_id, "commands"), _as(m.CommandResult),
                    body={"command": sent, "expected_version": expected_version}, params=params, key=key or _key())

    @op("sendCommand")
    def resign(self, game_id: str, *, key: str | None = None) -> Call[m.CommandResult]:
        """Resign the caller's seat (the `table.Resign` command)."""
        return Api.command.build(self, game_id, {"type": "table.Resign"}, key=key)

    @op("getEvents")
    def events(self, game_id: str, after: int = 0, limit: int | None = None, *,
               as_seat: int | None = None) -> Call[m.EventPage]:
        return Call("GET", _game(game_id, "events"), _as(m.EventPage),
                    params={"after": after, "limit": limit, "as_seat": as_seat})

    @op("exportGame")
    def export(self, game_id: str) -> Call[bytes]:
        """The full log as NDJSON (after the end)."""
        return Call("GET", _game(game_id, "export"), _bytes)

    @op("getLeaderboard")
    def leaderboard(self, kind: str, *, limit: int | None = None, cursor: str | None = None) -> Call[c.Leaderboard]:
        return Call("GET", path_of("v1", "leaderboards", kind), _as(c.Leaderboard),
                    params={"limit": limit, "cursor": cursor})

    # ------------------------------------------------------------------ the transparency log (docs/audit.md)

    @op("getLogInfo")
    def log_info(self) -> Call[c.LogInfo]:
        """The log's origin, its signer's public key and its size."""
        return Call("GET", "/v1/log", _as(c.LogInfo))

    @op("getCheckpoint")
    def checkpoint(self) -> Call[str]:
        """The newest signed checkpoint (a C2SP signed note) with its witnesses' cosignatures."""
        return Call("GET", "/v1/log/checkpoint", _text)

    @op("getCheckpointOfSize")
    def checkpoint_of_size(self, size: int) -> Call[str]:
        """The signed checkpoint published for a tree of `size` leaves."""
        return Call("GET", path_of("v1", "log", "checkpoints", str(size)), _text)

    @op("issueCheckpoint")
    def issue_checkpoint(self) -> Call[str]:
        """Sign a checkpoint now (the admin token), instead of waiting for the worker's interval."""
        return Call("POST", "/v1/log/checkpoints", _text)

    @op("addCosignature")
    def add_cosignature(self, note: str, witness_key: str) -> Call[str]:
        """Submit a witness's cosignature of a checkpoint; the answer is the note with it appended."""
        return Call("POST", "/v1/log/cosignatures", _text,
                    body=_body(c.Cosignature, note=note, witness_key=witness_key))

    @op("listLogLeaves")
    def log_leaves(self, start: int | None = None, limit: int | None = None) -> Call[c.LeafPage]:
        return Call("GET", "/v1/log/leaves", _as(c.LeafPage), params={"start": start, "limit": limit})

    @op("getInclusionProof")
    def inclusion_proof(self, stream_id: str, size: int | None = None) -> Call[c.InclusionProof]:
        """Proofs that a game's or competition's leaves are in the tree of `size` leaves (the newest if None)."""
        return Call("GET", path_of("v1", "log", "proofs", "inclusion", stream_id), _as(c.InclusionProof),
                    params={"size": size})

    @op("getConsistencyProof")
    def consistency_proof(self, first: int, second: int) -> Call[c.ConsistencyProof]:
        """The proof that the tree of `second` leaves extends the tree of `first` leaves."""
        return Call("GET", "/v1/log/proofs/consistency", _as(c.ConsistencyProof),
                    params={"first": first, "second": second})

    @op("getStats")
    def stats(self, days: int | None = None) -> Call[c.PlatformStats]:
        return Call("GET", "/v1/stats", _as(c.PlatformStats), params={"days": days})

    @op("health")
    def health(self) -> Call[m.Health]:
        return Call("GET", "/healthz", _as(m.Health))

    @op("ready")
    def ready(self) -> Call[m.Health]:
        """Whether this server can serve (503 `Unavailable` while its database or a dependency is down)."""
        return Call("GET", "/readyz", _as(m.Health))

    # ------------------------------------------------------------------------------------------ stream tickets

    @op("createGameStreamTicket")
    def game_ticket(self, game_id: str) -> Call[m.Ticket]:
        return Call("POST", _game(game_id, "stream-tickets"), _as(m.Ticket))

    @op("createPersonalStreamTicket")
    def personal_ticket(self) -> Call[m.Ticket]:
        return Call("POST", "/v1/players/me/stream-tickets", _as(m.Ticket))

    @op("createStreamTicket")
    def stream_ticket(self) -> Call[m.Ticket]:
        """A ticket for the multiplexed stream (`GET /v1/stream`)."""
        return Call("POST", "/v1/stream-tickets", _as(m.Ticket))

    # ------------------------------------------------------------------------------------------ streams
    # (the same stream classes for both clients: `async for` on `Client`'s, `for` on `SyncClient`'s)

    def _opened(self, stream: F) -> F:
        self.streams.add(stream)
        return stream

    @covers("streamGame")
    def game_stream(self, game_id: str, *, last_event_id: str | None = None, ticket: bool = False,
                    read_timeout: float = 60.0) -> GameStream:
        """The game's frames (`Snapshot`, then `EventFrame`s) as this caller may see them, resuming by itself."""
        return self._opened(GameStream(self, game_id, last_event_id=last_event_id, ticket=ticket,
                                       read_timeout=read_timeout))

    @covers("streamMyGames")
    def personal_stream(self, *, legal: bool = False, last_event_id: str | None = None, ticket: bool = False,
                        read_timeout: float = 60.0) -> PersonalStream:
        """Notices (`GameState`, `GameStarted`, `YourTurn`, `GameEnded`) about every game of this player;
        with `legal`, a notice of this player's turn carries the seat's legal commands."""
        return self._opened(PersonalStream(self, legal=legal, last_event_id=last_event_id, ticket=ticket,
                                           read_timeout=read_timeout))

    @covers("streamMany")
    def stream(self, games: Iterable[str] = (), *, personal: bool = False, legal: bool = False,
               ticket: bool = False, read_timeout: float = 60.0) -> MultiStream:
        """Several games (and with `personal` this player's notices) on one connection, each resuming exactly."""
        return self._opened(MultiStream(self, list(games), personal=personal, legal=legal, ticket=ticket,
                                        read_timeout=read_timeout))

    @covers("streamTournament")
    def tournament_stream(self, tournament_id: str, *, read_timeout: float = 60.0) -> TournamentStream:
        """A tournament's events (public), as `Event`s, resuming by itself; ends after its last."""
        return self._opened(TournamentStream(self, tournament_id, read_timeout=read_timeout))

    @covers("streamArena")
    def arena_stream(self, arena_id: str, *, read_timeout: float = 60.0) -> ArenaStream:
        """An arena's events (public), as `Event`s, resuming by itself; ends after its last."""
        return self._opened(ArenaStream(self, arena_id, read_timeout=read_timeout))

    # ------------------------------------------------------------------------------------------ tournaments
    # (the tournament and arena endpoints take no Idempotency-Key: their writes are not retried after no answer;
    # each body is checked against the contract's Struct before it is sent, so a mistyped one fails here)

    @op("listTournaments")
    def tournaments(self, *, status: str | None = None, kind: str | None = None, limit: int | None = None,
                    cursor: str | None = None) -> Call[c.TournamentPage]:
        return Call("GET", "/v1/tournaments", _as(c.TournamentPage),
                    params={"status": status, "kind": kind, "limit": limit, "cursor": cursor})

    @op("createTournament")
    def create_tournament(self, /, kind: str, *, name: str | None = None, seats: int | None = None,
                          rounds: int | None = None, format: str | None = None,
                          options: Mapping[str, Any] | msgspec.Struct | None = None,
                          time_control: Mapping[str, Any] | c.TimeControl | None = None,
                          entry: Mapping[str, Any] | c.Entry | None = None, invitation_code: str | None = None,
                          bye_points: float | None = None, points_per_place: Iterable[float] | None = None,
                          tiebreaks: Iterable[str] | None = None, advance: int | None = None,
                          duplicate: bool | None = None, late_join_until: int | None = None,
                          min_players: int | None = None, max_players: int | None = None) -> Call[c.TournamentView]:
        """A tournament organised by this player (`TournamentCreate`; what is left None the server decides)."""
        body = _body(c.TournamentCreate, kind=kind, name=name, seats=seats, rounds=rounds, format=format,
                     options=options, time_control=time_control, entry=entry, invitation_code=invitation_code,
                     bye_points=bye_points, points_per_place=points_per_place, tiebreaks=tiebreaks, advance=advance,
                     duplicate=duplicate, late_join_until=late_join_until, min_players=min_players,
                     max_players=max_players)
        return Call("POST", "/v1/tournaments", _as(c.TournamentView), body=body)

    @op("getTournament")
    def tournament(self, tournament_id: str) -> Call[c.TournamentView]:
        return _view("GET", _tournament(tournament_id))

    @op("getTournamentEvents")
    def tournament_events(self, tournament_id: str, after: int = 0) -> Call[c.TournamentEvents]:
        return Call("GET", _tournament(tournament_id, "events"), _as(c.TournamentEvents), params={"after": after})

    @op("registerForTournament")
    def register_for(self, /, tournament_id: str, *, player_id: str | None = None, name: str | None = None,
                     code: str | None = None, rating: int | None = None) -> Call[c.EntrantView]:
        """Register this player (or, for the organiser, `player_id` / a guest `name`; `code` for a closed one);
        the answer is that player's entry (`tournament` reads the whole tournament)."""
        return _entrant("POST", _tournament(tournament_id, "register"),
                        _body(c.RegisterRequest, player_id=player_id, name=name, code=code, rating=rating))

    @op("withdrawFromTournament")
    def withdraw_from(self, tournament_id: str, player_id: str | None = None) -> Call[c.EntrantView]:
        """Withdraw this player (or, for the organiser, `player_id`); the answer is that player's entry."""
        return _entrant("POST", _tournament(tournament_id, "withdraw"), _body(c.WithdrawRequest, player_id=player_id))

    @op("startTournament")
    def start_tournament(self, tournament_id: str) -> Call[c.TournamentView]:
        return _view("POST", _tournament(tournament_id, "start"))

    @op("addTournamentBots")
    def add_tournament_bots(self, tournament_id: str, count: int = 1, strategy: str = "greedy",
                            strength: int = 3) -> Call[c.TournamentView]:
        """The organiser registers `count` bots (registered like any player, so the tournament's rules apply)."""
        return _view("POST", _tournament(tournament_id, "bots"),
                     _body(c.TournamentBots, count=count, strategy=strategy, strength=strength))

    @op("forbidTournamentPairing")
    def forbid_pairing(self, tournament_id: str, players: Iterable[str]) -> Call[c.TournamentView]:
        """The organiser forbids these players from meeting at one table."""
        return _view("POST", _tournament(tournament_id, "forbidden-pairings"), _body(c.ForbidRequest, players=players))

    @op("setTournamentPairings")
    def set_pairings(self, tournament_id: str, round: int, tables: Iterable[Iterable[str]],
                     byes: Iterable[str] = ()) -> Call[c.TournamentView]:
        """The organiser sets the next round's tables (players in seat order) and byes (Swiss)."""
        return _view("POST", _tournament(tournament_id, "pairings"),
                     _body(c.PairingsRequest, round=round, tables=[list(t) for t in tables], byes=byes))

    @op("adjudicateTournamentGame")
    def adjudicate(self, tournament_id: str, game_id: str, ranks: Iterable[int]) -> Call[c.TournamentView]:
        """The organiser decides a game's result (`ranks` per seat)."""
        return _view("POST", _tournament(tournament_id, "games", game_id, "adjudicate"),
                     _body(c.AdjudicateRequest, ranks=ranks))

    @op("annulTournamentGame")
    def annul(self, tournament_id: str, game_id: str) -> Call[c.TournamentView]:
        return _view("POST", _tournament(tournament_id, "games", game_id, "annul"))

    @op("pauseTournamentPlayer")
    def pause_player(self, tournament_id: str, player_id: str | None = None) -> Call[c.TournamentView]:
        """Sit out the next rounds (the organiser: `player_id`'s)."""
        return _view("POST", _tournament(tournament_id, "pause"), _body(c.PauseRequest, player_id=player_id))

    @op("resumeTournamentPlayer")
    def resume_player(self, tournament_id: str, player_id: str | None = None) -> Call[c.TournamentView]:
        return _view("POST", _tournament(tournament_id, "resume"), _body(c.PauseRequest, player_id=player_id))

    @op("setTournamentWindows")
    def set_windows(self, tournament_id: str, windows: Iterable[tuple[int, int]]) -> Call[c.TournamentView]:
        """A slow tournament: the caller's weekly playing windows, each (start, end) in minutes from Monday
        00:00 UTC; their per-move time counts only inside them (empty: any time)."""
        return _view("PUT", _tournament(tournament_id, "windows"),
                     _body(c.PlayingWindows, windows=[{"start": start, "end": end} for start, end in windows]))

    @op("removeTournamentPlayer")
    def remove_player(self, tournament_id: str, player_id: str, reason: str = "") -> Call[c.TournamentView]:
        return _view("POST", _tournament(tournament_id, "remove"),
                     _body(c.RemoveRequest, player_id=player_id, reason=reason))

    @op("getTournamentReport")
    def tournament_report(self, tournament_id: str) -> Call[c.TournamentReport]:
        return Call("GET", _tournament(tournament_id, "report"), _as(c.TournamentReport))

    @op("getTournamentReportCsv")
    def tournament_report_csv(self, tournament_id: str, part: str | None = None) -> Call[bytes]:
        return Call("GET", _tournament(tournament_id, "report", "csv"), _bytes, params={"part": part})

    # ------------------------------------------------------------------------------------------ arenas

    @op("listArenas")
    def arenas(self, limit: int | None = None) -> Call[c.ArenaList]:
        return Call("GET", "/v1/arenas", _as(c.ArenaList), params={"limit": limit})

    @op("createArena")
    def create_arena(self, /, kind: str, *, name: str | None = None, minutes: int | None = None,
                     seats: int | None = None, options: Mapping[str, Any] | msgspec.Struct | None = None,
                     starts_in_seconds: int | None = None,
                     time_control: Mapping[str, Any] | c.TimeControl | None = None, berserk: bool | None = None,
                     berserk_moves: int | None = None) -> Call[c.ArenaView]:
        """An arena (`ArenaCreate`; what is left None the server decides)."""
        body = _body(c.ArenaCreate, kind=kind, name=name, minutes=minutes, seats=seats, options=options,
                     starts_in_seconds=starts_in_seconds, time_control=time_control, berserk=berserk,
                     berserk_moves=berserk_moves)
        return _arena_view("POST", "/v1/arenas", body)

    @op("getArena")
    def arena(self, arena_id: str) -> Call[c.ArenaView]:
        return _arena_view("GET", _arena(arena_id))

    @op("getArenaEvents")
    def arena_events(self, arena_id: str, after: int = 0) -> Call[c.TournamentEvents]:
        return Call("GET", _arena(arena_id, "events"), _as(c.TournamentEvents), params={"after": after})

    @op("addArenaBots")
    def add_arena_bots(self, arena_id: str, count: int = 1, strategy: str = "greedy",
                       strength: int = 3) -> Call[c.ArenaView]:
        """The arena's organiser enters `count` bots (the arena's own rule; they play every game it pairs them into)."""
        return _arena_view("POST", _arena(arena_id, "bots"),
                           _body(c.TournamentBots, count=count, strategy=strategy, strength=strength))

    @op("joinArena")
    def join_arena(self, /, arena_id: str, *, name: str | None = None,
                   rating: int | None = None) -> Call[c.ArenaEntrantView]:
        """Join the arena (or come back after a pause); the answer is this player's part of the arena, as
        `leave_arena`, `pause_arena` and `berserk` answer too (`arena` reads the whole arena)."""
        return _arena_entrant("POST", _arena(arena_id, "join"), _body(c.ArenaJoin, name=name, rating=rating))

    @op("leaveArena")
    def leave_arena(self, arena_id: str) -> Call[c.ArenaEntrantView]:
        return _arena_entrant("POST", _arena(arena_id, "leave"))

    @op("pauseArena")
    def pause_arena(self, arena_id: str) -> Call[c.ArenaEntrantView]:
        return _arena_entrant("POST", _arena(arena_id, "pause"))

    @op("berserkInArena")
    def berserk(self, arena_id: str, game_id: str) -> Call[c.ArenaEntrantView]:
        return _arena_entrant("POST", _arena(arena_id, "games", game_id, "berserk"))

    # ------------------------------------------------------------------------------------------ bot workers

    @op("leaseBots")
    def lease_bots(self, worker: str, *, have: Iterable[str] = (), max: int | None = None,
                   lease_seconds: float | None = None) -> Call[list[c.Lease]]:
        """A bot worker's leases (the admin token only)."""
        body = _body(c.LeaseRequest, worker=worker, have=have, max=max, lease_seconds=lease_seconds)
        return Call("POST", "/v1/bots/leases", _as(list[c.Lease]), body=body)

    @op("finishBot")
    def bot_done(self, bot_id: str) -> Call[None]:
        return Call("POST", path_of("v1", "bots", bot_id, "done"), _nothing)
