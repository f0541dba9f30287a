"""Accounts: set a password, sign in by name for a fresh token, and the caller's tokens (personal access
tokens with scopes), listed and revoked one by one. See docs/accounts.md."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from litestar import Controller, Request, delete, get, post
from litestar.di import NamedDependency
from litestar.params import JSONBody, PathParameter
from msgspec import Meta

from service.commands.accounts import MAX_PASSWORD, MIN_PASSWORD
from service.commands.players import Viewer
from service.container import Services
from service.edge.errors import responses
from service.edge.middleware import client_address, parse_networks
from service.edge.schemas import NO_NUL, Name, strictly
from service.store.accounts import Credential

Password = Annotated[str, Meta(min_length=MIN_PASSWORD, max_length=MAX_PASSWORD)]
TokenId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="token id")]
Scope = Literal["read", "play", "tournaments:organise"]  # GRANTABLE (a test holds them equal)


class PasswordSet(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    password: Password


class LoginOut(msgspec.Struct, kw_only=True):
    login: Annotated[str, Meta(description="the name to sign in with (the player's name, case-folded)")]


class SignIn(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: Name
    password: Annotated[str, Meta(min_length=1, max_length=1024)]  # any answer to a wrong one is the same 401


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


def token_out(c: Credential) -> TokenOut:
    return TokenOut(id=c.id, kind=c.kind, name=c.name, scopes=c.scopes, client_id=c.client_id,
                    created_at=c.created_at.isoformat(),
                    expires_at=c.expires_at.isoformat() if c.expires_at else None)


def created(c: Credential, token: str) -> TokenCreated:
    return TokenCreated(**msgspec.structs.asdict(token_out(c)), token=token)


class AccountController(Controller):
    path = "/v1"
    tags = ["accounts"]

    @post("/players/me/password", operation_id="setPassword", summary="Set the caller's password",
          status_code=200, security=[{"bearer": []}], responses=responses(400, 401, 403, 409),
          description="After this the player can sign in with its name (case-folded) and this password. Names "
                      "are logins: a name another account signs in with is refused (409 `name_taken`).")
    async def set_password(self, request: Request, viewer: NamedDependency[Viewer],
                           services: NamedDependency[Services], data: JSONBody[PasswordSet]) -> LoginOut:
        data = await strictly(request, PasswordSet)
        return LoginOut(login=await services.accounts.set_password(viewer.require_player(), data.password))

    @post("/sessions", operation_id="signIn", summary="Sign in by name and password for a fresh token",
          status_code=201, responses=responses(400, 401),
          description="A new bearer token with every scope, valid 30 days, listed among the caller's tokens. "
                      "A wrong name and a wrong password are refused alike (401 `sign_in_failed`) after the "
                      "same work; repeated failures for a name or from an address are refused for a while "
                      "(429 `sign_in_throttled` with Retry-After).")
    async def sign_in(self, request: Request, services: NamedDependency[Services],
                      data: JSONBody[SignIn]) -> SessionOut:
        data = await strictly(request, SignIn)
        trusted = parse_networks(services.settings.trusted_proxies)  # the rate limiter's rule for who the client is
        address = client_address(request.client.host if request.client else None,
                                 request.headers.get("x-forwarded-for"), trusted)
        player, credential, token = await services.accounts.sign_in(data.name, data.password, address)
        return SessionOut(**msgspec.structs.asdict(created(credential, token)), player_id=player.id)

    @post("/players/me/tokens", operation_id="createAccessToken", summary="A personal access token with scopes",
          status_code=201, security=[{"bearer": []}], responses=responses(400, 401, 403),
          description="Scopes: `read` (views, events, streams), `play` (create, join, start games and send "
                      "commands), `tournaments:organise` (create and run tournaments). Shown once.")
    async def create_token(self, request: Request, viewer: NamedDependency[Viewer],
                           services: NamedDependency[Services], data: JSONBody[TokenCreate]) -> TokenCreated:
        data = await strictly(request, TokenCreate)
        credential, token = await services.accounts.create_token(viewer.require_player(), data.name, data.scopes,
                                                                 data.expires_in_days)
        return created(credential, token)

    @get("/players/me/tokens", operation_id="listAccessTokens", summary="The caller's tokens",
         security=[{"bearer": []}], responses=responses(401, 403),
         description="Every live token but the player's first: sign-ins, personal access tokens and apps' "
                     "tokens (never the tokens themselves).")
    async def list_tokens(self, viewer: NamedDependency[Viewer], services: NamedDependency[Services]) -> list[TokenOut]:
        return [token_out(c) for c in await services.accounts.tokens(viewer.require_player())]

    @delete("/players/me/tokens/{token_id:str}", operation_id="revokeAccessToken", summary="Revoke one token",
            status_code=204, security=[{"bearer": []}], responses=responses(400, 401, 403, 404),
            description="The token stops working (at once here, within seconds everywhere); its stream tickets "
                        "are refused at once and the streams opened with it or them end within a second.")
    async def revoke_token(self, viewer: NamedDependency[Viewer], services: NamedDependency[Services],
                           token_id: TokenId) -> None:
        await services.accounts.revoke_token(viewer.require_player(), token_id)
        services.revocations.revoked()
