"""Who is on the other end: the client address behind trusted proxies, and the admin token rule.

`client_address` believes `X-Forwarded-For` only when the direct peer is a configured trusted
proxy (`STELA_TRUSTED_PROXIES`; none by default, not even 127.0.0.1), and then takes the
rightmost address that is not itself a trusted proxy, the one the nearest trusted hop saw, so
a client cannot choose its own rate-limit bucket by sending the header. `admin_token_problem`
refuses a short or placeholder admin token outside development mode. `json_only` answers 415 to
a body in any format but JSON.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

from litestar.types import ASGIApp, Receive, Scope, Send

from service.edge.errors import send_problem

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
PLACEHOLDERS = frozenset({"change-me", "changeme", "dev-admin-token-change-me", "admin", "admin-secret", "secret",
                          "password", "token"})
MIN_ADMIN_TOKEN = 32


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


def json_only(app: ASGIApp) -> ASGIApp:
    """415 for a request body sent as anything but JSON (forms and `text/plain` never create anything).

    A body without a Content-Type is read as JSON (curl-style clients that send raw JSON), and a
    request without a body needs no Content-Type (`POST .../start`).
    """

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"].encode() not in _BODY_METHODS:
            await app(scope, receive, send)
            return
        content_type, has_body = None, False
        for name, value in scope["headers"]:
            if name == b"content-type":
                content_type = value
            elif name == b"content-length":
                has_body = value.strip() not in (b"0", b"")
            elif name == b"transfer-encoding":
                has_body = True
        if has_body and content_type is not None and not _is_json(content_type):
            await send_problem(scope, send, 415, "unsupported_media_type",
                               "send the body as application/json")
            return
        await app(scope, receive, send)

    return middleware
