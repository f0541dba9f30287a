"""The reference web client: static files (plain ES modules, SVG boards) served at `/`.

It uses only the public `/v1` API, stream tickets, the personal stream and the competitions' streams, so it
doubles as an example for third-party front ends. No build step: `static/` is served as it is.
Pages (hash routes): the lobby `#/`, a game `#/game/<id>`, its replay `#/replay/<id>`, the competitions
`#/competitions` (`#/tournaments` and `#/arenas` too) and the one competition page of every format, reached as
`#/tournament/<id>` or `#/arena/<id>`.

The lowest of the service's sub-packages: it imports no other package of `service` (only litestar),
and the app factory (`service.edge.app`) registers its routes. The OAuth consent page
(`/consent.html`) is sent with `Content-Security-Policy: frame-ancestors 'none'` and
`X-Frame-Options: DENY`, so no browser shows it inside another site's frame (clickjacking), before any
of its script runs.
"""

from __future__ import annotations

from pathlib import Path

from litestar.static_files import create_static_files_router
from litestar.types import ASGIApp, Message, Receive, Scope, Send

STATIC_DIR: Path = Path(__file__).parent / "static"
CONSENT_PAGE = "/consent.html"
NO_FRAMING = ((b"content-security-policy", b"frame-ancestors 'none'"), (b"x-frame-options", b"DENY"))


def never_framed(app: ASGIApp) -> ASGIApp:
    """`app` with the consent page's answers carrying the anti-framing headers (NO_FRAMING)."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("path") != CONSENT_PAGE:
            await app(scope, receive, send)
            return

        async def framed(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *NO_FRAMING]}
            await send(message)

        await app(scope, receive, framed)

    return wrapped


def routes() -> list:
    """The static-files router serving the client at `/` (index.html for `/`)."""
    return [create_static_files_router(path="/", directories=[STATIC_DIR], html_mode=True,
                                       include_in_schema=False, name="web", middleware=[never_framed])]
