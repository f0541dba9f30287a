"""The reference web client: static files (plain ES modules, SVG boards) served at `/`.

It uses only the public `/v1` API, stream tickets, the personal stream and the tournament stream, so it
doubles as an example for third-party front ends. No build step: `static/` is served as it is.
Pages (hash routes): the lobby `#/`, a game `#/game/<id>`, its replay `#/replay/<id>`, the tournaments
`#/tournaments` and one tournament `#/tournament/<id>`.

The lowest of the service's sub-packages: it imports no other package of `service` (only litestar),
and the app factory (`service.edge.app`) registers its routes.
"""

from __future__ import annotations

from pathlib import Path

from litestar.static_files import create_static_files_router

STATIC_DIR: Path = Path(__file__).parent / "static"


def routes() -> list:
    """The static-files router serving the client at `/` (index.html for `/`)."""
    return [create_static_files_router(path="/", directories=[STATIC_DIR], html_mode=True,
                                       include_in_schema=False, name="web")]
