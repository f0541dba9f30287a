"""The command route's fast path answers exactly as the framework's route does, and hands every
request it does not certainly understand to the router with its body intact.

A request the fast path declines (an unknown query parameter, a percent-encoded value) is
answered by the framework route, so posting the same commands both ways compares the two.
"""

from __future__ import annotations

from typing import Any

from litestar.testing import AsyncTestClient

from service.edge.app import create_app
from service.edge.routes.play import CommandFastPath
from tests.support.api import started_game

ADD = {"command": {"type": "tally.Add", "amount": 1}}
ROUTER = "?via=router"  # a query parameter the route ignores and the fast path does not know


def same_shape(fast: Any, slow: Any) -> None:
    """Status, headers (but the request id) and body equal; event times and the game in `instance` may differ."""
    assert fast.status_code == slow.status_code
    ignore = {"x-request-id", "content-length"}
    assert {k: v for k, v in fast.headers.items() if k not in ignore} == \
        {k: v for k, v in slow.headers.items() if k not in ignore}
    body_fast, body_slow = fast.json(), slow.json()
    for body, response in ((body_fast, fast), (body_slow, slow)):
        if "instance" in body:  # each names its own game
            assert body.pop("instance") == response.request.url.path
            game_id = response.request.url.path.split("/")[3]
            body["detail"] = body["detail"].replace(game_id, "<game>").replace(ROUTER, "")
        for event in body.get("events") or []:
            event.pop("at")
    assert body_fast == body_slow


async def twin_games(client: Any) -> tuple[list[tuple[str, list[dict[str, Any]]]], dict[str, int]]:
    """Two Tally games at the same version with the same seat to act (that seat, per game)."""
    games = [await started_game(client, "tally", 2, {"target": 30}) for _ in range(2)]
    to_act = [(await client.get(f"/v1/games/{g}")).json()["to_act"][0] for g, _ in games]
    if to_act[0] != to_act[1]:  # the first seat to act is drawn: one command each brings them level
        for (game_id, players), seat in zip(games, to_act):
            done = await client.post(f"/v1/games/{game_id}/commands", json=ADD, headers=players[seat]["headers"])
            assert done.status_code == 200, done.text
    return games, {g: (await client.get(f"/v1/games/{g}")).json()["to_act"][0] for g, _ in games}


async def both(client: Any, games: list, query: str, seat_of: Any, extra: dict[str, str] | None = None,
               **kwargs: Any) -> tuple[Any, Any]:
    """The same command to each game: the first through the fast path, the second through the router."""
    out = []
    for (game_id, players), fast in zip(games, (True, False)):
        suffix = ("?" + query if query else "") if fast else ROUTER + ("&" + query if query else "")
        headers = {**(players[seat_of(game_id)]["headers"] if seat_of else {}), **(extra or {})}
        out.append(await client.post(f"/v1/games/{game_id}/commands{suffix}", headers=headers, **kwargs))
    return out[0], out[1]


async def test_an_accepted_command_reads_the_same_both_ways(client):
    games, to_act = await twin_games(client)
    game_id, players = games[0]
    for query in ("dry_run=true", "dry_run=true&include=view", "include=legal,view&dry_run=true"):
        one_game = [games[0], games[0]]  # a dry run changes nothing: the same game answers both
        fast, slow = await both(client, one_game, query, to_act.get, json=ADD)
        assert fast.status_code == 200 and fast.json()["dry_run"] is True, fast.text
        same_shape(fast, slow)
    for query in ("", "include=legal", ""):
        fast, slow = await both(client, games, query, to_act.get, json=ADD)
        assert fast.status_code == 200 and fast.json()["events"], fast.text
        same_shape(fast, slow)
        to_act = {g: (await client.get(f"/v1/games/{g}")).json()["to_act"][0] for g, _ in games}


async def test_refusals_read_the_same_both_ways(client):
    games, to_act = await twin_games(client)
    waiting = {g: 1 - seat for g, seat in to_act.items()}
    cases = [
        ("not your turn", waiting.get, {"json": ADD}),
        ("not a command of the kind", to_act.get, {"json": {"command": {"type": "tally.Nope"}}}),
        ("stale expected version", to_act.get, {"json": {**ADD, "expected_version": 1}}),
        ("unknown token", to_act.get, {"json": ADD, "extra": {"Authorization": "Bearer stl_nobody"}}),
        ("anonymous", None, {"json": ADD}),
        ("malformed body", to_act.get, {"content": b'{"command": ', "extra": {"Content-Type": "application/json"}}),
        ("command not an object", to_act.get, {"json": {"command": [1]}}),
        ("unknown field", to_act.get, {"json": {**ADD, "extra": 1}}),
        ("key too long", to_act.get, {"json": ADD, "extra": {"Idempotency-Key": "k" * 129}}),
    ]
    for name, seat_of, kwargs in cases:
        fast, slow = await both(client, games, "", seat_of, **kwargs)
        assert fast.status_code >= 400, name
        same_shape(fast, slow)
    missing = [await client.post(f"/v1/games/no-such-game/commands{q}", json=ADD,
                                 headers=games[0][1][0]["headers"]) for q in ("", ROUTER)]
    assert missing[0].status_code == 404
    same_shape(*missing)


async def test_both_ways_count_as_the_same_route_and_log_the_player(client):
    game_id, players = await started_game(client, "tally", 2)
    metrics = client.app.state.metrics
    route = "/v1/games/{game_id}/commands"

    def counted() -> float:
        return metrics.registry.get_sample_value("stela_http_requests_total",
                                                 {"method": "POST", "route": route, "status": "200"}) or 0

    before = counted()
    for suffix in ("", ROUTER):
        seat = (await client.get(f"/v1/games/{game_id}")).json()["to_act"][0]
        resp = await client.post(f"/v1/games/{game_id}/commands{suffix}", json=ADD, headers=players[seat]["headers"])
        assert resp.status_code == 200 and resp.headers["x-request-id"]
    assert counted() == before + 2


async def call(app: Any, fast: Any, path: str, body: bytes, headers: list[tuple[bytes, bytes]], chunks: int = 1,
               query: bytes = b"") -> tuple[list[dict], list[dict]]:
    """One raw ASGI request to `app` (the body in `chunks` parts); the messages sent back."""
    size = -(-len(body) // chunks) if body else 0
    parts = [body[i:i + size] for i in range(0, len(body), size)] if body else [b""]
    incoming = [{"type": "http.request", "body": p, "more_body": i < len(parts) - 1} for i, p in enumerate(parts)]
    sent: list[dict] = []

    async def receive() -> dict:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": path, "raw_path": path.encode(), "root_path": "",
             "query_string": query, "headers": [(b"host", b"test"), *headers], "client": ("127.0.0.1", 1),
             "server": ("test", 80), "scheme": "http", "http_version": "1.1", "state": {},
             "asgi": {"version": "3.0"}, "app": app, "litestar_app": app}
    await fast(scope, receive, send)
    return sent, incoming


async def test_the_fast_path_answers_alone_and_hands_the_rest_on_with_the_body(settings, games):
    app = create_app(settings, games=games)
    routed: list[bytes] = []

    async def router(scope: Any, receive: Any, send: Any) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        routed.append(body)
        await send({"type": "http.response.start", "status": 418, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    fast = CommandFastPath(app, router, lambda: app.state.get("services"))
    async with AsyncTestClient(app, timeout=30) as client:
        game_id, players = await started_game(client, "tally", 2)
        seat = (await client.get(f"/v1/games/{game_id}")).json()["to_act"][0]
        token = players[seat]["headers"]["Authorization"].encode()
        version = (await client.get(f"/v1/games/{game_id}")).json()["version"]
        body = b'{"command": {"type": "tally.Add", "amount": 1}}'
        plain = [(b"authorization", token), (b"content-length", str(len(body)).encode())]
        portal = client.blocking_portal  # the app's services live on the client's event loop
        sent, _ = portal.call(call, app, fast, f"/v1/games/{game_id}/commands", body, plain, 3)
        assert sent[0]["status"] == 200 and routed == []
        assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == version + 1
        declined = [
            (body, plain, b"dry_run=True"),  # not the plain spelling: the router decides
            (body, plain + [(b"authorization", token)], b""),  # a repeated header
            (body, [(b"authorization", token)], b""),  # no declared length
            (b'{"command": 1}', [(b"authorization", token), (b"content-length", b"14")], b""),
        ]
        for data, headers, query in declined:
            sent, left = portal.call(call, app, fast, f"/v1/games/{game_id}/commands", data, headers, 2, query)
            assert sent[0]["status"] == 418 and routed[-1] == data and not left
        assert len(routed) == len(declined)
        assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == version + 1
