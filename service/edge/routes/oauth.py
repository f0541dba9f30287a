"""OAuth 2.0 for apps (docs/accounts.md): registration, the consent page's two calls, the token endpoint,
the player's authorized apps, and the RFC 8414 metadata. Authlib does the protocol
(`service.commands.oauth`); this module only turns litestar requests into its `Wire` and back.

The authorization endpoint is the reference web client's consent page (`/consent.html`): it shows
the app and the scopes from `describeAuthorization` and posts the player's answer to
`decideAuthorization`, which says where to send the browser (the app's redirect URI with a code or
an error). The token endpoint and the revocation endpoint (RFC 7009) take
`application/x-www-form-urlencoded` bodies (RFC 6749 4.1.3, the only forms the API reads:
`form_route`) and answer as RFC 6749 5.1 / 5.2 say, errors included. The metadata's `issuer` and
endpoints come from the settings (`Settings.issuer`), never from the request's Host header.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any
from urllib.parse import parse_qsl

import msgspec
from litestar import Controller, Request, Response, delete, get, post
from litestar.di import NamedDependency
from litestar.enums import RequestEncodingType
from litestar.datastructures import URL, ResponseHeader
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import OAuthFlow, OAuthFlows, SecurityScheme
from litestar.params import Body, JSONBody, PathParameter
from litestar.types import ASGIApp, Receive, Scope, Send
from msgspec import Meta

from service.commands.oauth import Wire
from service.commands.players import GRANTABLE, Viewer
from service.edge.dependencies import viewer_after
from service.edge.desks import Credentials
from service.edge.errors import responses
from service.edge.routes.accounts import Scope
from service.edge.schemas import NO_NUL, StrictBody
from service.ops.subjects import issued
from service.store.protocol import token_hash

TOKEN_PATH = "/oauth/token"  # a protocol endpoint (RFC 6749 errors), outside the versioned API
REVOKE_PATH = "/oauth/revoke"  # RFC 7009, the same kind of endpoint
FORM_PATHS = frozenset((TOKEN_PATH, REVOKE_PATH))
# the token and revocation endpoints' form at most (its longest field, a redirect URI, is at most 2,000 characters): 413 beyond
TOKEN_FORM_BYTES = 16 * 1024
CONSENT_PAGE = "/consent.html"
ClientId = Annotated[str, PathParameter(max_length=64, pattern=NO_NUL, description="the app's client_id")]
FormValue = str | list[str] | None  # a repeated parameter arrives as a list (and is refused by Authlib)
RedirectUri = Annotated[str, Meta(max_length=2000, description="https, or http on a loopback host; no fragment")]


class AppCreate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: Annotated[str, Meta(min_length=1, max_length=64, pattern=NO_NUL)]
    redirect_uris: Annotated[list[RedirectUri], Meta(min_length=1, max_length=5)]
    scopes: Annotated[list[Scope], Meta(min_length=1, max_length=3)]


class AppOut(msgspec.Struct, kw_only=True):
    client_id: str
    name: str
    redirect_uris: list[str]
    scopes: list[str]


class Consent(msgspec.Struct, kw_only=True):
    client_id: str
    name: Annotated[str, Meta(description="the app's name, as its owner registered it")]
    scopes: list[str]
    redirect_uri: str


class Decision(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    request: Annotated[str, Meta(max_length=8000, description="the authorization request's query string, as received")]
    allow: bool


class Redirect(msgspec.Struct, kw_only=True):
    redirect_to: str


class AuthorizedApp(msgspec.Struct, kw_only=True):
    client_id: str
    name: str
    scopes: list[str]
    since: str


class TokenForm(msgspec.Struct, kw_only=True):
    """RFC 6749 4.1.3 and 6 (public clients: `client_id`, no secret; PKCE: `code_verifier`). Nothing is checked
    here: what is missing, repeated or wrong is Authlib's to answer, in RFC 6749's own error format."""

    grant_type: Annotated[FormValue, Meta(examples=["authorization_code", "refresh_token"])] = None
    client_id: FormValue = None
    code: FormValue = None
    redirect_uri: FormValue = None
    code_verifier: FormValue = None
    refresh_token: FormValue = None
    scope: FormValue = None


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def client_facing(url: URL) -> URL:
    """`url` as clients use it: https (the deployment's TLS terminator answers them; the service itself never
    sees TLS), except on a loopback host, where a developer's plain http is allowed (RFC 8252 7.3)."""
    return url if url.hostname in LOOPBACK else url.with_replacements(scheme="https")


def _wire(request: Request, params: list[tuple[str, str]]) -> Wire:
    return Wire(request.method, str(client_facing(request.url)), dict(request.headers), params)


def _query(request: Request, query: str | None = None) -> Wire:
    text = query if query is not None else request.scope["query_string"].decode("latin-1")
    return _wire(request, parse_qsl(text, keep_blank_values=True))


async def _form(request: Request) -> Wire:
    """The request with its form's parameters (read here: `form_route` sent it around the JSON-only edge)."""
    return _wire(request, parse_qsl((await request.body()).decode("utf-8", "replace"), keep_blank_values=True))


def form_route(json_app: ASGIApp, raw_app: ASGIApp) -> ASGIApp:
    """Requests to the token and revocation endpoints go around the JSON-only edge (`json_app`) to `raw_app`."""

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        target = raw_app if scope["type"] == "http" and scope.get("path") in FORM_PATHS else json_app
        await target(scope, receive, send)

    return route


def metadata(issuer: str) -> dict[str, Any]:
    """RFC 8414 authorization server metadata for `issuer` (the API's public origin, from the settings)."""
    from authlib.oauth2.rfc8414 import AuthorizationServerMetadata

    document = AuthorizationServerMetadata(
        issuer=issuer, authorization_endpoint=issuer + CONSENT_PAGE, token_endpoint=issuer + TOKEN_PATH,
        revocation_endpoint=issuer + REVOKE_PATH, revocation_endpoint_auth_methods_supported=["none"],
        scopes_supported=list(GRANTABLE), response_types_supported=["code"],
        grant_types_supported=["authorization_code", "refresh_token"],
        token_endpoint_auth_methods_supported=["none"], code_challenge_methods_supported=["S256"],
        service_documentation=issuer + "/schema")
    return dict(document)  # valid by RFC 8414 for an https issuer (tests/service/edge/test_oauth.py)


@get("/.well-known/oauth-authorization-server", operation_id="getAuthorizationServerMetadata", tags=["oauth"],
     summary="OAuth 2.0 authorization server metadata (RFC 8414)", responses=responses(),
     description="`issuer` is STELA_OAUTH_ISSUER (default STELA_PUBLIC_URL), whatever Host the request names.")
async def discovery(credentials: NamedDependency[Credentials]) -> dict[str, Any]:
    return metadata(credentials.issuer)


class OAuthController(Controller):
    path = "/v1"
    tags = ["oauth"]
    dependencies = viewer_after("credentials")

    @post("/oauth/apps", dto=StrictBody[AppCreate], return_dto=None,
          operation_id="registerApp", summary="Register an app (a public OAuth client)",
          status_code=201, security=[{"bearer": []}], responses=responses(400, 401, 403, 422),
          description="Its redirect URIs must match exactly when used; each is https, or http on a loopback "
                      "host. The app uses PKCE (S256) and no secret.")
    async def register(self, viewer: NamedDependency[Viewer], credentials: NamedDependency[Credentials],
                       data: JSONBody[AppCreate]) -> AppOut:
        client = await credentials.oauth.register(viewer.require_player(), data.name, data.redirect_uris, data.scopes)
        return AppOut(client_id=client.client_id, name=client.name, redirect_uris=client.redirect_uris,
                      scopes=client.scopes)

    @get("/oauth/authorize", operation_id="describeAuthorization", summary="What an authorization request asks",
         security=[{"bearer": []}], responses=responses(400, 401, 403, 422),
         description="For the consent page: send the app's authorization request's query string unchanged "
                     "(response_type=code, client_id, redirect_uri, scope, state, code_challenge, "
                     "code_challenge_method=S256). An invalid request is a 422 `oauth.<RFC 6749 error>`.")
    async def describe(self, request: Request, viewer: NamedDependency[Viewer],
                       credentials: NamedDependency[Credentials]) -> Consent:
        app, scopes = await credentials.oauth.describe(_query(request), viewer.require_player())
        return Consent(client_id=app.client.client_id, name=app.client.name, scopes=scopes,
                       redirect_uri=request.query_params.get("redirect_uri") or app.get_default_redirect_uri() or "")

    @post("/oauth/authorize", dto=StrictBody[Decision], return_dto=None,
          operation_id="decideAuthorization", summary="The player allows or denies an app",
          status_code=200, security=[{"bearer": []}], responses=responses(400, 401, 403, 422),
          description="Answers where to send the browser: the app's redirect URI with `code` and `state` when "
                      "allowed, with `error=access_denied` when denied.")
    async def decide(self, request: Request, viewer: NamedDependency[Viewer], credentials: NamedDependency[Credentials],
                     data: JSONBody[Decision]) -> Redirect:
        target = await credentials.oauth.decide(_query(request, data.request), viewer.require_player(), data.allow)
        return Redirect(redirect_to=target)

    @get("/players/me/apps", operation_id="listAuthorizedApps", summary="The apps acting for the caller",
         security=[{"bearer": []}], responses=responses(401, 403))
    async def apps(self, viewer: NamedDependency[Viewer],
                   credentials: NamedDependency[Credentials]) -> list[AuthorizedApp]:
        return [AuthorizedApp(client_id=c.client_id, name=c.name, scopes=scopes, since=since.isoformat())
                for c, scopes, since in await credentials.oauth.apps(viewer.require_player())]

    @delete("/players/me/apps/{client_id:str}", operation_id="revokeAuthorizedApp", status_code=204,
            summary="End an app's access", security=[{"bearer": []}], responses=responses(400, 401, 403, 404),
            description="Every token of the app for the caller stops working; their stream tickets are refused "
                        "at once and the streams opened with them end within a second.")
    async def revoke(self, viewer: NamedDependency[Viewer], credentials: NamedDependency[Credentials],
                     client_id: ClientId) -> None:
        await credentials.oauth.revoke_app(viewer.require_player(), client_id)
        credentials.revocations.revoked()


class TokenResponse(msgspec.Struct, kw_only=True):
    access_token: str
    token_type: Annotated[str, Meta(examples=["Bearer"])]
    expires_in: int
    refresh_token: str
    scope: str


class TokenError(msgspec.Struct, kw_only=True):
    error: Annotated[str, Meta(examples=["invalid_grant"], description="RFC 6749 5.2")]
    error_description: str | None = None


# the token and revocation endpoints' errors: RFC 6749 5.2 JSON, not problem details
PROTOCOL_ERRORS = {
    400: ResponseSpec(TokenError, description="RFC 6749 5.2 error", generate_examples=False),
    401: ResponseSpec(TokenError, description="invalid_client, when the client sent an Authorization header "
                      "(public clients send none: their unknown client_id is a 400)", generate_examples=False)}


@post(TOKEN_PATH, operation_id="oauthToken", summary="The token endpoint (RFC 6749)", status_code=200, tags=["oauth"],
      response_headers=[ResponseHeader(name="Cache-Control", description="no-store", documentation_only=True)],
      responses=PROTOCOL_ERRORS,
      description="`grant_type=authorization_code` (with `code`, `redirect_uri`, `client_id`, `code_verifier`) "
                      "or `grant_type=refresh_token` (with `refresh_token`, `client_id`; the refresh token is "
                  "rotated). Errors are RFC 6749 5.2 JSON (`error`, `error_description`).")
async def token(request: Request, credentials: NamedDependency[Credentials],
                data: Annotated[TokenForm, Body(media_type=RequestEncodingType.URL_ENCODED)]) -> Response[TokenResponse]:
    status, body, headers = await credentials.oauth.token(await _form(request))
    if status == 200 and isinstance(body, dict) and isinstance(body.get("access_token"), str):
        await _issued(request, credentials, body["access_token"], body.get("expires_in"))
    return Response(content=body, status_code=status, headers=headers, media_type="application/json")


async def _issued(request: Request, credentials: Credentials, token: str, seconds: Any) -> None:
    """Note the app's new access token, with its player and expiry, for the budgets of every replica."""
    identity = await credentials.players.identify(token_hash(token))
    if identity is not None:
        expires = datetime.now(UTC) + timedelta(seconds=seconds) if isinstance(seconds, int) else None
        issued(request.scope, token, identity.player.id, expires)


class RevokeForm(msgspec.Struct, kw_only=True):
    """RFC 7009 2.1 (public clients: `client_id`, no secret). Checked by Authlib, as at the token endpoint."""

    token: FormValue = None
    token_type_hint: Annotated[FormValue, Meta(examples=["refresh_token", "access_token"])] = None
    client_id: FormValue = None


class Revoked(msgspec.Struct):
    """RFC 7009 2.2: the revocation endpoint's answer, an empty object."""


@post(REVOKE_PATH, operation_id="oauthRevoke", summary="The revocation endpoint (RFC 7009)", status_code=200,
      tags=["oauth"],
      responses=PROTOCOL_ERRORS,
      description="An app ends a grant: `token` (its access or refresh token), `token_type_hint` (optional), "
                  "`client_id`. The tokens issued from that authorization (and their rotations) stop working "
                  "with their tickets and streams; the app's other grants (other devices) do not. An unknown "
                  "or already revoked token is answered 200 too (RFC 7009 2.2); another app's token is "
                  "`invalid_grant`.")
async def revoke(request: Request, credentials: NamedDependency[Credentials],
                 data: Annotated[RevokeForm, Body(media_type=RequestEncodingType.URL_ENCODED)]) -> Response[Revoked]:
    status, body, headers = await credentials.oauth.revocation(await _form(request))
    if status == 200:
        credentials.revocations.revoked()
    return Response(content=body, status_code=status, headers=headers, media_type="application/json")


OAUTH_HANDLERS = [OAuthController, discovery, token, revoke]
OAUTH_SCHEME = SecurityScheme(
    type="oauth2", description="an app's access token (authorization code with PKCE S256; see "
    "/.well-known/oauth-authorization-server); the scope an operation needs is in its requirement",
    flows=OAuthFlows(authorization_code=OAuthFlow(
        authorization_url=CONSENT_PAGE, token_url=TOKEN_PATH, refresh_url=TOKEN_PATH,
        scopes={"read": "read games, events and streams as the player",
                "play": "create, join and start games and send commands as the player",
                "tournaments:organise": "create and run tournaments as the player"})))
