"""Accounts: set or change a password (and the login it signs in with), sign in by login for a fresh token,
and the caller's tokens (personal access tokens with scopes), listed and revoked one by one. See
docs/accounts.md."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from litestar import Controller, Request, delete, get, post
from litestar.di import NamedDependency
from litestar.params import JSONBody, PathParameter
from msgspec import Meta

from service.commands.accounts import MAX_PASSWORD, MIN_PASSWORD, login_given
from service.commands.players import Viewer
from service.edge.dependencies import viewer_after
from service.edge.desks import Credentials
from service.edge.errors import responses
from service.edge.middleware import client_address
from service.edge.schemas import NO_NUL, StrictBody
from service.ops.subjects import issued
from service.store.accounts import Credential

Password = Annotated[str, Meta(min_length=MIN_PASSWORD, max_length=MAX_PASSWORD)]
AnyPassword = Annotated[str, Meta(min_length=1, max_length=1024)]  # any answer to a wrong one is the same
CurrentPassword = Annotated[str, Meta(min_length=1, max_length=1024, description=(
    "the password now: needed to change one, unless the caller's token is a session signed in within the last "
    "10 minutes"))]
Login = Annotated[str, Meta(min_length=1, max_length=80, pattern=r"^[^\x00-\x1f]+$", examples=["ada"], description=(
    "an account's handle, unique among accounts (trimmed, NFC, case-folded); when setting a password, default "
    "the account's, or for a new one the name's if free, else the name with a short suffix"))]
OldName = Annotated[str, Meta(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f]+$",
                              description="deprecated: the login, as clients before logins sent it")]
TokenId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="token id")]
Scope = Literal["read", "play", "tournaments:organise"]  # GRANTABLE (a test holds them equal)


class PasswordSet(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    password: Password
    current_password: CurrentPassword | None = None  # (a bare union: the framework's schema keeps its bounds)
    login: Login | None = None
    keep_tokens: Annotated[bool, Meta(
        description="a change ends every other token of the player (sessions, personal, apps', the first "
                    "token) unless this is true")] = False


class LoginOut(msgspec.Struct, kw_only=True):
    login: Annotated[str, Meta(description="the login to sign in with (unique; the name is a display name)")]
    ended_tokens: Annotated[int, Meta(description="how many other tokens the change ended")] = 0


class SignIn(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    login: Login | None = None
    name: OldName | None = None
    password: AnyPassword


class TokenCreate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: Annotated[str, Meta(min_length=1, max_length=64, pattern=NO_NUL, description="what the token is for")]
    scopes: Annotated[list[Scope], Meta(min_length=1, max_length=3)]
    expires_in_days: Annotated[int, Meta(ge=1, le=3650)] | None = None


class TokenOut(msgspec.Struct, kw_only=True):
    id: str
    kind: Annotated[Literal["session", "personal", "oauth"], Meta(
        description="`session` (a sign-in), `personal` or `oauth` (an app's)")]
    name: str
    scopes: list[str]
    client_id: str | None
    created_at: str
    expires_at: str | None


class TokenCreated(TokenOut, kw_only=True):
    token: Annotated[str, Meta(description="bearer token; shown once, stored hashed")]


class SessionOut(TokenCreated, kw_only=True):
    player_id: str


def _address(request: Request, credentials: Credentials) -> str:
    """The client's address as the rate limiter sees it (X-Forwarded-For only from a trusted proxy)."""
    return client_address(request.client.host if request.client else None,
                          request.headers.get("x-forwarded-for"), credentials.trusted_proxies)


def token_out(c: Credential) -> TokenOut:
    return TokenOut(id=c.id, kind=c.kind, name=c.name, scopes=c.scopes, client_id=c.client_id,
                    created_at=c.created_at.isoformat(),
                    expires_at=c.expires_at.isoformat() if c.expires_at else None)


def created(c: Credential, token: str) -> TokenCreated:
    return TokenCreated(**msgspec.structs.asdict(token_out(c)), token=token)


class AccountController(Controller):
    path = "/v1"
    tags = ["accounts"]
    dependencies = viewer_after("credentials")

    @post("/players/me/password", dto=StrictBody[PasswordSet], return_dto=None,
          operation_id="setPassword", summary="Set or change the caller's password",
          status_code=200, security=[{"bearer": []}], responses=responses(400, 401, 403, 409, 422),
          description="After this the player signs in with the answered `login` and this password. A change "
                      "needs `current_password` (or a session signed in within 10 minutes; else 403 "
                      "`reauthentication_required`) and ends every other token unless `keep_tokens`. A "
                      "`login` another account has is refused (409 `login_taken`); without one, a new "
                      "account gets its name's login if free, else the name with a suffix (never a 409).")
    async def set_password(self, request: Request, viewer: NamedDependency[Viewer],
                           credentials: NamedDependency[Credentials], data: JSONBody[PasswordSet]) -> LoginOut:
        login, ended = await credentials.accounts.set_password(
            viewer.require_player(), data.password, _address(request, credentials), viewer.digest, login=data.login,
            current=data.current_password, keep_tokens=data.keep_tokens)
        if ended:
            credentials.revocations.revoked()
        return LoginOut(login=login, ended_tokens=ended)

    @post("/sessions", dto=StrictBody[SignIn], return_dto=None,
          operation_id="signIn", summary="Sign in by login and password for a fresh token",
          status_code=201, responses=responses(400, 401, 422),
          description="Send `login` (`name`, its older spelling, is still read). A new bearer token with every "
                      "scope, valid 30 days, listed among the caller's tokens. A wrong login and a wrong "
                      "password are refused alike (401 `sign_in_failed`) after the same work; attempts are "
                      "counted before any work, per login and address, per login and per address, and past a "
                      "limit refused for a while (429 `sign_in_throttled` with Retry-After).")
    async def sign_in(self, request: Request, credentials: NamedDependency[Credentials],
                      data: JSONBody[SignIn]) -> SessionOut:
        login = login_given(data.login, data.name)
        player, credential, token = await credentials.accounts.sign_in(login, data.password,
                                                                       _address(request, credentials))
        issued(request.scope, token, player.id, credential.expires_at)  # every replica's budgets know it
        return SessionOut(**msgspec.structs.asdict(created(credential, token)), player_id=player.id)

    @post("/players/me/tokens", dto=StrictBody[TokenCreate], return_dto=None,
          operation_id="createAccessToken", summary="A personal access token with scopes",
          status_code=201, security=[{"bearer": []}], responses=responses(400, 401, 403),
          description="Scopes: `read` (views, events, streams), `play` (create, join, start games and send "
                      "commands), `tournaments:organise` (create and run tournaments). Shown once.")
    async def create_token(self, request: Request, viewer: NamedDependency[Viewer],
                           credentials: NamedDependency[Credentials], data: JSONBody[TokenCreate]) -> TokenCreated:
        credential, token = await credentials.accounts.create_token(viewer.require_player(), data.name, data.scopes,
                                                                 data.expires_in_days)
        issued(request.scope, token, credential.player_id, credential.expires_at)
        return created(credential, token)

    @get("/players/me/tokens", operation_id="listAccessTokens", summary="The caller's tokens",
         security=[{"bearer": []}], responses=responses(401, 403),
         description="Every live token but the player's first: sign-ins, personal access tokens and apps' "
                     "tokens (never the tokens themselves).")
    async def list_tokens(self, viewer: NamedDependency[Viewer],
                          credentials: NamedDependency[Credentials]) -> list[TokenOut]:
        return [token_out(c) for c in await credentials.accounts.tokens(viewer.require_player())]

    @delete("/players/me/tokens/{token_id:str}", operation_id="revokeAccessToken", summary="Revoke one token",
            status_code=204, security=[{"bearer": []}], responses=responses(400, 401, 403, 404),
            description="The token stops working (at once here, within seconds everywhere); its stream tickets "
                        "are refused at once and the streams opened with it or them end within a second.")
    async def revoke_token(self, viewer: NamedDependency[Viewer], credentials: NamedDependency[Credentials],
                           token_id: TokenId) -> None:
        await credentials.accounts.revoke_token(viewer.require_player(), token_id)
        credentials.revocations.revoked()
