"""Delegated access for apps: OAuth 2.0 authorization code with PKCE (RFC 6749, RFC 7636), refresh with rotation.

Authlib's generic server (`authlib.oauth2`) does the protocol: validating authorization and token
requests, PKCE, redirect URIs, scopes, errors. This module gives it storage (apps, codes, tokens in
the account store) and a request it can read (`Wire`, built by the edge from any framework's
request). Authlib is synchronous, so each call runs in a worker thread and reaches the async store
through the event loop (`_Bridge`). Policies beyond Authlib's defaults, each an RFC 9700
recommendation: a code is single-use and a replayed code revokes every token issued from it; a
refresh token is rotated at each use and a replayed (already rotated or revoked) refresh token
revokes its grant: the chain of tokens issued from one authorization code (RFC 9700 4.14.2). Authlib's RFC 7009 endpoint revokes a token for the app that holds it:
the grant it belongs to (the tokens issued from one authorization code and their rotations) ends,
the app's other grants (other devices) do not.
"""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import urlsplit

from authlib.oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import OAuth2Error, OAuth2Request, UnsupportedTokenTypeError, grants
from authlib.oauth2.rfc6749.requests import BasicOAuth2Payload
from authlib.oauth2.rfc6750 import BearerTokenGenerator
from authlib.oauth2.rfc7009 import RevocationEndpoint

from service.commands.accounts import scopes_of
from service.commands.exceptions import InvalidRequest, NotFound, ServiceError
from service.commands.oauth_models import App, Code, S256Only, Token
from service.commands.players import GRANTABLE, Players, display_name, new_token
from service.store.accounts import AuthCode, Credential, OAuthClient
from service.store.protocol import EventStore, Player, token_hash

T = TypeVar("T")
ACCESS_SECONDS = 3600
REFRESH_DAYS = 30
CODE_SECONDS = 60


class OAuthRefused(ServiceError):
    """Authlib refused an authorization request the caller (the player's browser) made; `code` is
    `oauth.<RFC 6749 error>`."""

    def __init__(self, error: OAuth2Error) -> None:
        super().__init__(error.description or error.error)
        self.code = f"oauth.{error.error}"


class BadRedirectUri(InvalidRequest):
    """A redirect URI an app may not register."""


class AppNotFound(NotFound):
    """No app of that id holds access of the caller's."""


class Wire:
    """An HTTP request as Authlib reads it: method, URL, headers and its parameters (query or form)."""

    def __init__(self, method: str, uri: str, headers: dict[str, str], params: list[tuple[str, str]]) -> None:
        self.method, self.uri, self.headers, self.params = method, uri, headers, params


class _Request(OAuth2Request):
    def __init__(self, wire: Wire) -> None:
        super().__init__(wire.method, wire.uri, headers=wire.headers)
        values: dict[str, list[str]] = {}
        for key, value in wire.params:  # one pass: the form's size bounds the work, never its square
            values.setdefault(key, []).append(value)
        data = {key: given[0] for key, given in values.items()}
        self.payload = BasicOAuth2Payload(data)
        self.payload._datalist = values
        self._params = data

    @property
    def args(self) -> dict[str, str]:
        return self._params

    @property
    def form(self) -> dict[str, str]:
        return self._params


class _Bridge:
    """Runs a coroutine on the event loop from Authlib's worker thread and waits for it."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None

    def __call__(self, coro: Coroutine[Any, Any, T]) -> T:
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=30)


class _CodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["none"]

    def save_authorization_code(self, code: str, request: Any) -> None:
        server: OAuthServer = self.server
        data = request.payload.data
        server.run(server.store.accounts().add_code(AuthCode(
            digest=token_hash(code), client_id=request.client.get_client_id(), player_id=request.user.id,
            redirect_uri=data.get("redirect_uri") or request.client.get_default_redirect_uri(), scope=request.scope,
            challenge=data["code_challenge"], method=data["code_challenge_method"],
            expires_at=datetime.now(UTC) + timedelta(seconds=CODE_SECONDS))))

    def query_authorization_code(self, code: str, client: App) -> Code | None:
        server: OAuthServer = self.server
        found = server.run(server.store.accounts().use_code(token_hash(code)))
        if found is None or found.client_id != client.get_client_id():
            return None
        if found.used_at is not None:  # replayed: whoever holds it, the tokens it gave are no longer trusted
            server.run(server.revoke(found.player_id, grant_digest=found.digest))
            return None
        return Code(found) if found.expires_at > datetime.now(UTC) else None

    def delete_authorization_code(self, authorization_code: Code) -> None:
        """Nothing: the code was marked used when it was read (`use_code`), so it is kept to detect a replay."""

    def authenticate_user(self, authorization_code: Code) -> Player | None:
        server: OAuthServer = self.server
        return server.run(server.store.get_player(authorization_code.code.player_id))


class _RefreshGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["none"]
    INCLUDE_NEW_REFRESH_TOKEN = True  # rotation: each refresh token is used once

    def authenticate_refresh_token(self, refresh_token: str) -> Token | None:
        server: OAuthServer = self.server
        found = server.run(server.store.accounts().credential_by_refresh(token_hash(refresh_token)))
        if found is None:
            return None
        token = Token(found)
        if token.is_revoked():  # a rotated refresh token used again: someone else may hold the chain (grant)
            server.run(server.revoke(found.player_id, grant_digest=found.grant_digest))
            return None
        return None if token.is_expired() else token

    def authenticate_user(self, refresh_token: Token) -> Player | None:
        server: OAuthServer = self.server
        return server.run(server.store.get_player(refresh_token.credential.player_id))

    def revoke_old_credential(self, refresh_token: Token) -> None:
        server: OAuthServer = self.server
        c = refresh_token.credential
        server.run(server.revoke(c.player_id, credential_id=c.id))


class _Revocation(RevocationEndpoint):
    """RFC 7009 for public clients (`client_id`, no secret): an app's access or refresh token ends its grant.
    A token that is not an app's (or not known) is answered 200 all the same, as RFC 7009 2.2 says."""

    CLIENT_AUTH_METHODS = ["none"]

    def check_params(self, request: Any, client: App) -> None:
        try:
            super().check_params(request, client)
        except UnsupportedTokenTypeError as error:  # Authlib answers it 401; RFC 7009 2.2.1 makes it a 5.2 error
            error.status_code = 400
            raise

    def query_token(self, token_string: str, token_type_hint: str | None) -> Token | None:
        server: OAuthServer = self.server
        accounts, digest = server.store.accounts(), token_hash(token_string)
        lookups = [accounts.credential, accounts.credential_by_refresh]
        if token_type_hint == "refresh_token":  # a hint orders the search, never limits it (RFC 7009 2.1)
            lookups.reverse()
        for lookup in lookups:
            found = server.run(lookup(digest))
            if found is not None and found.kind == "oauth":
                return Token(found)
        return None

    def revoke_token(self, token: Token, request: Any) -> None:
        server: OAuthServer = self.server
        c = token.credential
        keys = {"grant_digest": c.grant_digest} if c.grant_digest else {"credential_id": c.id}
        server.run(server.revoke(c.player_id, **keys))


class OAuthServer(AuthorizationServer):
    """Authlib's authorization server on the account store; call its async methods from the event loop."""

    def __init__(self, store: EventStore, players: Players, access_seconds: int = ACCESS_SECONDS) -> None:
        super().__init__(scopes_supported=list(GRANTABLE))
        self.store, self.players, self.run = store, players, _Bridge()
        self.register_grant(_CodeGrant, [S256Only(required=True)])
        self.register_grant(_RefreshGrant)
        self.register_endpoint(_Revocation)
        self.register_token_generator("default", BearerTokenGenerator(
            access_token_generator=lambda **_: new_token(), refresh_token_generator=lambda **_: new_token(),
            expires_generator=access_seconds))

    # -- what Authlib asks of a framework integration ---------------------------------
    def query_client(self, client_id: str) -> App | None:
        found = self.run(self.store.accounts().client(client_id))
        return App(found) if found is not None else None

    def save_token(self, token: dict[str, Any], request: Any) -> None:
        now = datetime.now(UTC)
        code: Code | None = request.authorization_code
        grant = code.code.digest if code is not None else request.refresh_token.credential.grant_digest
        self.run(self.store.accounts().add_credential(Credential(
            id=str(uuid.uuid4()), digest=token_hash(token["access_token"]), player_id=request.user.id, kind="oauth",
            name=request.client.client.name, scopes=token.get("scope", "").split(),
            client_id=request.client.get_client_id(), grant_digest=grant,
            refresh_digest=token_hash(token["refresh_token"]), created_at=now,
            expires_at=now + timedelta(seconds=token["expires_in"]),
            refresh_expires_at=now + timedelta(days=REFRESH_DAYS))))

    def create_oauth2_request(self, request: Any) -> OAuth2Request:
        return request if isinstance(request, OAuth2Request) else _Request(request)

    def create_json_request(self, request: Any) -> Any:
        raise NotImplementedError("no JSON endpoints")

    def handle_response(self, status: int, body: Any, headers: list[tuple[str, str]]) -> tuple[int, Any, dict[str, str]]:
        return status, body, dict(headers)

    def send_signal(self, name: str, *args: Any, **kwargs: Any) -> None:
        """No signals are listened to."""

    # -- the service's side, async ------------------------------------------------------
    async def revoke(self, player_id: str, **keys: str | None) -> int:
        """Revoke a player's app tokens by key (`credential_id`, `client_id`, `grant_digest`); forget them here."""
        accounts = self.store.accounts()
        before = {c.id: c.digest for c in await accounts.credentials(player_id)}
        count = await accounts.revoke(player_id, **keys)
        after = {c.id for c in await accounts.credentials(player_id)}
        self.players.forget([d for i, d in before.items() if i not in after])
        return count

    async def _in_thread(self, call: Callable[[], T]) -> T:
        self.run.loop = asyncio.get_running_loop()
        return await asyncio.to_thread(call)

    async def describe(self, wire: Wire, player: Player) -> tuple[App, list[str]]:
        """The app and scopes an authorization request asks the player to grant; OAuthRefused if it is invalid."""
        def consent() -> tuple[App, list[str]]:
            try:
                grant = self.get_consent_grant(wire, end_user=player)
            except OAuth2Error as error:
                raise OAuthRefused(error) from error
            return grant.client, grant.request.scope.split()
        return await self._in_thread(consent)

    async def decide(self, wire: Wire, player: Player, allow: bool) -> str:
        """Where to send the browser after the player allowed (a code) or denied the request; OAuthRefused when
        the request cannot be redirected back to the app (unknown app, or a redirect URI it did not register)."""
        def authorize() -> str:
            try:
                grant = self.get_consent_grant(wire, end_user=player)
            except OAuth2Error as error:
                if error.redirect_uri:  # the app's own URI: an error it reads (RFC 6749 4.1.2.1)
                    return str(dict(error(None)[2])["Location"])
                raise OAuthRefused(error) from error
            status, _, headers = self.create_authorization_response(wire, player if allow else None, grant)
            return headers["Location"]
        return await self._in_thread(authorize)

    async def token(self, wire: Wire) -> tuple[int, Any, dict[str, str]]:
        """The token endpoint's answer (status, JSON body, headers): RFC 6749 5.1 or 5.2."""
        return await self._in_thread(lambda: self.create_token_response(wire))

    async def revocation(self, wire: Wire) -> tuple[int, Any, dict[str, str]]:
        """The RFC 7009 revocation endpoint's answer (status, JSON body, headers)."""
        return await self._in_thread(lambda: self.create_endpoint_response("revocation", wire))

    async def register(self, owner: Player, name: str, redirect_uris: list[str], scopes: list[str]) -> OAuthClient:
        """A new public app of `owner` with exact `redirect_uris` (https, or http on a loopback host) and the
        scopes it may ask for; its name (shown on the consent page) follows the rules of a player's name."""
        for uri in redirect_uris:
            check_redirect_uri(uri)
        client = OAuthClient(client_id="app_" + secrets.token_urlsafe(16), name=display_name(name),
                             redirect_uris=redirect_uris,
                             scopes=scopes_of(scopes), owner_id=owner.id)
        await self.store.accounts().add_client(client)
        return client

    async def apps(self, player: Player) -> list[tuple[OAuthClient, list[str], datetime]]:
        """Each app holding live tokens of the player: the app, the scopes granted, since when."""
        accounts, seen = self.store.accounts(), {}
        for c in await accounts.credentials(player.id):
            if c.kind == "oauth" and c.client_id is not None:
                scopes, since = seen.get(c.client_id, (set(), c.created_at))
                seen[c.client_id] = (scopes | set(c.scopes), min(since, c.created_at))
        out = []
        for client_id, (scopes, since) in seen.items():
            client = await accounts.client(client_id)
            if client is not None:
                out.append((client, [s for s in GRANTABLE if s in scopes], since))
        return out

    async def revoke_app(self, player: Player, client_id: str) -> None:
        """End the app's access for the player: its tokens, and with them their tickets and streams."""
        if not await self.revoke(player.id, client_id=client_id):
            raise AppNotFound(f"app {client_id!r} holds no access of yours")


def check_redirect_uri(uri: str) -> None:
    """BadRedirectUri unless `uri` is absolute, without a fragment, and https or http on a loopback host."""
    parts = urlsplit(uri)
    loopback = parts.hostname in ("localhost", "127.0.0.1", "::1")
    if parts.fragment or not parts.hostname or not (parts.scheme == "https" or (parts.scheme == "http" and loopback)):
        raise BadRedirectUri(f"{uri!r}: a redirect URI is https (or http on a loopback host), with no fragment")
