"""A transport that answers from a script and records what was sent (for the retry rules, no server)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field

from stela_client import Response, TransportError
from stela_client.transport import StreamResponse


@dataclass
class Sent:
    method: str
    url: str
    headers: dict[str, str]
    body: bytes | None


def problem(status: int, code: str, retry_after: str | None = None, **extra: object) -> Response:
    headers = {"Content-Type": "application/problem+json", **({"Retry-After": retry_after} if retry_after else {})}
    body = {"type": f"https://stela.dev/problems/{code}", "title": code, "status": status, "detail": code,
            "code": code, **extra}
    return Response(status, headers, json.dumps(body).encode())


def ok(body: object, status: int = 200) -> Response:
    return Response(status, {"Content-Type": "application/json"}, json.dumps(body).encode())


@dataclass
class ScriptedTransport:
    """Each request takes the next answer of `script` (an exception instance is raised instead)."""

    script: list[Response | Exception]
    sent: list[Sent] = field(default_factory=list)

    async def request(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None,
                      timeout: float) -> Response:
        self.sent.append(Sent(method, url, dict(headers), body))
        answer = self.script.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    @contextlib.asynccontextmanager
    async def stream(self, url: str, headers: Mapping[str, str], read_timeout: float) -> AsyncIterator[StreamResponse]:
        raise TransportError("no streams here")
        yield  # pragma: no cover

    async def close(self) -> None:
        return None
