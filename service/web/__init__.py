"""The reference web client: static files (plain ES modules, SVG boards) served at `/`.

It uses only the public `/v1` API, stream tickets and the personal stream, so it doubles as an
example for third-party front ends. No build step: `static/` is served as it is.
"""

from __future__ import annotations

from pathlib import Path

from litestar.static_files import create_static_files_router

STATIC_DIR: Path = Path(__file__).parent / "static"


def routes() -> list:
    """The static-files router serving the client at `/` (index.html for `/`)."""
    return [create_static_files_router(path="/", directories=[STATIC_DIR], html_mode=True,
                                       include_in_schema=False, name="web")]
