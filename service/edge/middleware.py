"""Who is on the other end: the client address behind trusted proxies, and the admin token rule.

`client_address` believes `X-Forwarded-For` only when the direct peer is a configured trusted
proxy (`STELA_TRUSTED_PROXIES`; none by default, not even 127.0.0.1), and then takes the
rightmost address that is not itself a trusted proxy, the one the nearest trusted hop saw, so
a client cannot choose its own rate-limit bucket by sending the header. `admin_token_problem`
refuses a short or placeholder admin token outside development mode. `bounded` answers 431 to
request headers over `MAX_HEADER_BYTES` in all and 413 to a body over `MAX_BODY_BYTES` (before a
byte of it is looked at when its length is announced, as soon as it passes the limit when it is
streamed); `json_only` adds 415 for a body in any format but JSON (or without a Content-Type) and
400 for one whose objects repeat a key; `cross_origin` is the API's CORS, as configured by a
`CORSConfig`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

from litestar.config.cors import CORSConfig
from litestar.constants import DEFAULT_ALLOWED_CORS_HEADERS
from litestar.types import ASGIApp, Receive, Scope, Send
from litestar.utils.scope.state import ScopeState

from service.edge.jsonkeys import duplicate_key
from service.commands.exceptions import InvalidRequest
from litestar.exceptions.http_exceptions import RequestEntityTooLarge

from service.edge.errors import HeadersTooLarge, PreflightRefused, UnsupportedMediaType, send_problem

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
PLACEHOLDERS = frozenset({"change-me", "changeme", "dev-admin-token-change-me", "admin", "admin-secret", "secret",
                          "password", "token"})
MIN_ADMIN_TOKEN = 32
# every request header's name and value together; a bearer token, a ticket, cookies and a forwarding chain fit
# many times over (nginx's default is 4 buffers of 8 KiB)
MAX_HEADER_BYTES = 32 * 1024
# every request body of every route (the largest the API takes, a tournament's creation with its forbidden
# pairings or an organiser's long command, is a few KiB); Litestar's own limit is set to the same
# (`create_app`), so no body the framework reads is larger either
MAX_BODY_BYTES = 64 * 1024


def parse_networks(text: str | None) -> tuple[Network, ...]:
    """`"10.0.0.0/8, 192.0.2.7"` as networks (a bare address is a /32 or /128); ValueError if malformed."""
    if not text:
        return ()
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())


def _trusted(address: str, networks: Iterable[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    return any(ip in net for net in networks)


def client_address(peer: str | None, forwarded_for: str | None, trusted: tuple[Network, ...]) -> str:
    """The address a request comes from, as described above."""
    peer = peer or "unknown"
    if not trusted or not forwarded_for or not _trusted(peer, trusted):
        return peer
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, trusted):
            return hop
    return hops[0] if hops else peer


def admin_token_problem(token: str | None, development: bool) -> str | None:
    """Why `token` may not be the admin token (None: it may, or there is none)."""
    if not token or development:
        return None
    if token.strip().lower() in PLACEHOLDERS:
        return "STELA_ADMIN_TOKEN is a known placeholder; set a random one (openssl rand -hex 32)"
    if len(token) < MIN_ADMIN_TOKEN:
        return f"STELA_ADMIN_TOKEN must have at least {MIN_ADMIN_TOKEN} characters (openssl rand -hex 32)"
    return None


_BODY_METHODS = (b"POST", b"PUT", b"PATCH")


def _is_json(content_type: bytes) -> bool:
    media = content_type.split(b";", 1)[0].strip().lower()
    return media == b"application/json" or (media.startswith(b"application/") and media.endswith(b"+json"))


class _Head:
    """What a request's header fields say about its body, read in one pass."""

    __slots__ = ("content_type", "has_body", "length", "size")

    def __init__(self, scope: Scope) -> None:
        self.content_type: bytes | None = None
        self.has_body, self.size, self.length = False, 0, None
        for name, value in scope["headers"]:
            self.size += len(name) + len(value)
            if name == b"content-type":
                self.content_type = value
            elif name == b"content-length":
                self.has_body = value.strip() not in (b"0", b"")
                self.length = int(value) if value.isdigit() else None
            elif name == b"transfer-encoding":
                self.has_body, self.length = True, None


NOT_JSON = "send the body as application/json (with that Content-Type)"  # the 415's detail


def too_large(size: int, limit: int) -> RequestEntityTooLarge:
    return RequestEntityTooLarge(detail=f"the request's body takes {size} bytes or more; at most {limit} are read")


async def _refused_head(scope: Scope, send: Send, head: _Head, max_header_bytes: int, max_body_bytes: int) -> bool:
    """Answer 431 or 413 for what the header fields alone show to be too large (True if it did)."""
    if head.size > max_header_bytes:
        await send_problem(scope, send, HeadersTooLarge(
            f"the request's headers take {head.size} bytes; at most {max_header_bytes} are read"))
        return True
    if head.length is not None and head.length > max_body_bytes:
        await send_problem(scope, send, too_large(head.length, max_body_bytes))
        return True
    return False


def bounded(app: ASGIApp, max_header_bytes: int = MAX_HEADER_BYTES, max_body_bytes: int = MAX_BODY_BYTES,
            json: bool = False) -> ASGIApp:
    """431 for request headers over `max_header_bytes` in all; 413 for a body over `max_body_bytes`, announced
    or streamed. Without `json` the body goes to `app` unread (the OAuth token endpoint's form: `form_route`).

    With `json`, 415 for a request body sent as anything but JSON (forms and `text/plain` never create
    anything) or with no Content-Type at all (nothing is guessed), and a body that repeats a key in one
    object is refused (400) wherever it is read. A request without a body needs no Content-Type.
    """

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        head = _Head(scope)
        if await _refused_head(scope, send, head, max_header_bytes, max_body_bytes):
            return
        if not head.has_body:
            await app(scope, receive, send)
        elif not json:
            await app(scope, _counted(receive, max_body_bytes), send)
        elif scope["method"].encode() in _BODY_METHODS and (
                head.content_type is None or not _is_json(head.content_type)):
            await send_problem(scope, send, UnsupportedMediaType(NOT_JSON))
        elif head.length is not None:  # announced, so within the limit: read here, at once
            await app(scope, await _read_ahead(scope, receive), send)
        else:
            await app(scope, _unique_keys(_counted(receive, max_body_bytes)), send)

    return middleware


def json_only(app: ASGIApp, max_header_bytes: int = MAX_HEADER_BYTES, max_body_bytes: int = MAX_BODY_BYTES) -> ASGIApp:
    """`bounded` with `json`: every route's bodies but the token endpoint's form."""
    return bounded(app, max_header_bytes, max_body_bytes, json=True)


async def _read_ahead(scope: Scope, receive: Receive) -> Receive:
    """Read the whole (bounded) body now and hand it to the framework as the request's body, so it never
    streams it again (Litestar's `Request.body` takes it from the connection state, where it keeps the
    body it read); a body that repeats a key, or that the client stopped sending, goes on as it came
    (see `_unique_keys`). The `receive` returned replays what was read, then reads on."""
    messages: list[Any] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body", False):
            break
    replay = iter(messages)

    async def replaying() -> Any:
        return next(replay, None) or await receive()

    if message["type"] != "http.request":  # the client left mid-body: the framework sees it as it happens
        return replaying
    body = b"".join(m.get("body", b"") for m in messages)
    if duplicate_key(body) is not None:
        return _unique_keys(replaying)
    ScopeState.from_scope(scope).body = body
    return replaying


def _counted(receive: Receive, limit: int) -> Receive:
    """`receive`, refusing (413 wherever the body is read) a streamed body once it passes `limit` bytes."""
    size = 0

    async def receiving() -> Any:
        nonlocal size
        message = await receive()
        if message["type"] == "http.request":
            size += len(message.get("body", b""))
            if size > limit:
                raise too_large(size, limit)
        return message

    return receiving


def _unique_keys(receive: Receive) -> Receive:
    """`receive`, refusing (InvalidRequest, a 400 wherever the body is read) a JSON body whose objects
    repeat a key; looked at once the whole (bounded) body has arrived (`service.edge.jsonkeys`)."""
    chunks: list[bytes] = []

    async def receiving() -> Any:
        message = await receive()
        if message["type"] == "http.request":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                key = duplicate_key(b"".join(chunks))
                if key is not None:
                    raise InvalidRequest(f"the JSON body repeats the key {key!r} in one object")
        return message

    return receiving


def _encoded(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    return [(name.lower().encode(), value.encode("latin-1")) for name, value in headers.items()]


def cross_origin(app: ASGIApp, config: CORSConfig) -> ASGIApp:
    """CORS as `config` says, for requests with an `Origin` header (the rest go to `app` untouched).

    A preflight (OPTIONS with an origin) is answered here: 204 with the allowed origin, methods and
    headers, or, when it asks for an origin, method or header the API does not allow, the problem
    detail `PreflightRefused` (400). Any other request's response carries the exposed headers and,
    for an allowed origin, `Access-Control-Allow-Origin`. Most API clients (bots, load generators,
    servers) send no origin: finding that costs one pass over the raw headers.
    """
    simple = _encoded(config.simple_headers)
    allowed = _encoded({"Access-Control-Allow-Headers": ", ".join(sorted(set(config.allow_headers))),
                        "Access-Control-Allow-Methods": ", ".join(sorted(set(config.allow_methods)))})
    replaced = {name for name, _ in simple + allowed} | {b"access-control-allow-origin", b"vary"}
    own = not config.is_allow_all_origins

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        origin = None
        if scope["type"] == "http":
            for name, value in scope["headers"]:
                if name == b"origin":
                    origin = value.decode("latin-1")
                    break
        if not origin:
            await app(scope, receive, send)
        elif scope["method"] == "OPTIONS":
            await _preflight(config, scope, send, origin)
        else:
            mine = [*simple, *allowed]
            if own and config.is_origin_allowed(origin):
                mine += [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin")]

            async def wrapped(message: Any) -> None:
                if message["type"] == "http.response.start":
                    kept = [(k, v) for k, v in message.get("headers", ()) if k.lower() not in replaced]
                    message["headers"] = [*kept, *mine]
                await send(message)

            await app(scope, receive, wrapped)

    return middleware


async def _preflight(config: CORSConfig, scope: Scope, send: Send, origin: str) -> None:
    """Answer a CORS preflight: 204 with what may be asked, or the refusal naming what may not."""
    asked: dict[bytes, str] = {}
    for name, value in scope["headers"]:
        if name in (b"access-control-request-method", b"access-control-request-headers"):
            asked[name] = value.decode("latin-1")
    method = asked.get(b"access-control-request-method")
    wanted = [h.strip() for h in asked.get(b"access-control-request-headers", "").split(",") if h.strip()]
    failures = []
    if not config.is_allow_all_methods and method and method not in config.allow_methods:
        failures.append(f"the method {method} (allowed: {', '.join(sorted(set(config.allow_methods)))})")
    headers = dict(config.preflight_headers)
    if not config.is_origin_allowed(origin):
        failures.append(f"the Origin {origin} (see STELA_CORS_ORIGINS)")
    elif headers.get("Access-Control-Allow-Origin") != "*":
        headers["Access-Control-Allow-Origin"] = origin
    if wanted and config.is_allow_all_headers:
        headers["Access-Control-Allow-Headers"] = ", ".join(sorted(set(wanted) | DEFAULT_ALLOWED_CORS_HEADERS))
    elif wanted:
        known = {h.lower() for h in (*config.allow_headers, *DEFAULT_ALLOWED_CORS_HEADERS)}
        refused = [h for h in wanted if h.lower() not in known]
        if refused:
            failures.append(f"the request headers {', '.join(refused)} (allowed: "
                            f"{', '.join(sorted(set(config.allow_headers)))})")
    if failures:
        await send_problem(scope, send, PreflightRefused(
            f"this preflight asks for {'; '.join(failures)}, which the API does not allow across origins"))
        return
    await send({"type": "http.response.start", "status": 204, "headers": _encoded(headers)})
    await send({"type": "http.response.body", "body": b""})
