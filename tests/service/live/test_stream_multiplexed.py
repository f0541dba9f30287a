"""The multiplexed stream (docs/streams.md): several games and the personal notices on one connection,
each game resumed exactly where it stopped, every game shown as its own stream shows it to the viewer."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.service.commands.test_hidden_information import dealt_in, secrets_of
from tests.service.live.test_personal_stream import game_with
from tests.service.live.test_sse import add, base_url, wait_for  # noqa: F401 - base_url: the fixture
from testkit.api import player, started_game
from tests.conftest import fresh_database
from testkit.live import free_port, sse_events, wait_healthy

MUX = "/v1/stream"


async def follow(client: httpx.AsyncClient, url: str, headers: dict, out: list) -> None:
    async with client.stream("GET", url, headers=headers, timeout=30) as resp:
        assert resp.status_code == 200, await resp.aread()
        assert resp.headers["content-type"].startswith("text/event-stream")
        async for message in sse_events(resp):
            out.append(message)


def frames(messages: list[dict], type_: str | None = None, game_id: str | None = None) -> list[dict]:
    out = [json.loads(m["data"]) for m in messages if "data" in m]
    return [f for f in out if (type_ is None or f["type"] == type_) and (game_id is None or f.get("game_id") == game_id)]


def last_id(messages: list[dict]) -> str:
    return [m["id"] for m in messages if "id" in m][-1]


def events_of(messages: list[dict], game_id: str) -> list[int]:
    return [f["event"]["version"] for f in frames(messages, "event", game_id)]


async def test_two_games_and_the_personal_notices_share_one_connection(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        ann, bob, cid = await player(client, "Ann"), await player(client, "Bob"), await player(client, "Cid")
        first, second = await game_with(client, [ann, bob]), await game_with(client, [cid, bob])
        got: list = []
        url = f"{MUX}?games={first},{second}&personal=true&legal=true"
        task = asyncio.create_task(follow(client, url, bob["headers"], got))
        await wait_for(lambda: frames(got, "ready"))
        assert not any("event" in m for m in got if "data" in m), "every frame is a default message event"
        snaps = {f["game_id"]: f["game"] for f in frames(got, "snapshot")}
        assert set(snaps) == {first, second} and all(g["your_seat"] == 1 for g in snaps.values())
        assert {f["game_id"] for f in frames(got, "game.state")} == {first, second}
        ready = frames(got, "ready")[0]
        assert ready["games"] == {first: snaps[first]["version"], second: snaps[second]["version"]}
        turns = frames(got, "turn")
        assert {t["game_id"] for t in turns} == {first, second}
        assert all(t["to_act"] == [0] and not t["your_turn"] and "commands" not in t for t in turns)

        v = await add(client, first, ann)
        await wait_for(lambda: frames(got, "game.your_turn", first) and
                       [t for t in frames(got, "turn", first) if t["version"] == v])
        turn = [t for t in frames(got, "turn", first) if t["version"] == v][0]
        legal = (await client.get(f"/v1/games/{first}/legal", headers=bob["headers"])).json()
        assert turn["your_turn"] and turn["your_seat"] == 1 and turn["commands"] == legal["commands"] != []
        assert frames(got, "game.your_turn", first)[0]["commands"] == legal["commands"]
        seen = (await client.get(f"/v1/games/{first}", headers=bob["headers"])).json()
        assert turn["view"] == seen["view"] is not None, "with legal=true a turn frame carries the seat's view"
        assert events_of(got, first) == [v] and frames(got, "event", first)[0]["event"]["type"] == "tally.Added"
        w = await add(client, second, cid, 2)
        await wait_for(lambda: events_of(got, second) == [w])
        task.cancel()
        game_ids = [m["id"].split(".") for m in got if "id" in m]
        assert all(len(parts) == 3 and parts[2].startswith("p") for parts in game_ids)
        assert last_id(got).split(".")[:2] == [str(v), str(w)]


async def test_last_event_id_resumes_every_game_exactly(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        ann, bob = await player(client, "Ann"), await player(client, "Bob")
        one, two, three = [await game_with(client, [ann, bob]) for _ in range(3)]
        url = f"{MUX}?games={one},{two},{three}"
        got: list = []
        task = asyncio.create_task(follow(client, url, ann["headers"], got))
        await wait_for(lambda: frames(got, "ready"))
        await add(client, one, ann)
        await wait_for(lambda: events_of(got, one))
        task.cancel()
        seen = last_id(got)
        missed = {one: [await add(client, one, bob), await add(client, one, ann)], two: [await add(client, two, ann)],
                  three: []}
        again: list = []
        task = asyncio.create_task(follow(client, url, {**ann["headers"], "Last-Event-ID": seen}, again))
        await wait_for(lambda: frames(again, "ready"))
        task.cancel()
        assert not frames(again, "snapshot"), "a resumed game sends what it missed, not a snapshot"
        for game_id, versions in missed.items():
            assert events_of(again, game_id) == versions
        assert {t["game_id"] for t in frames(again, "turn")} == {one, two, three}

        # the explicit form, for a new connection (here: one more game, the first two resumed by position)
        extra = await game_with(client, [ann, bob])
        after = f"{one}:{missed[one][0]},{two}:{missed[two][0] - 1}"
        fresh: list = []
        task = asyncio.create_task(follow(client, f"{MUX}?games={one},{two},{extra}&after={after}",
                                          ann["headers"], fresh))
        await wait_for(lambda: frames(fresh, "ready"))
        task.cancel()
        assert events_of(fresh, one) == missed[one][1:] and events_of(fresh, two) == missed[two]
        assert [f["game_id"] for f in frames(fresh, "snapshot")] == [extra]


async def test_no_frame_shows_a_seat_another_seats_secret_or_the_seed(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        first, players = await started_game(client, "tally", 3, {"target": 200})
        second = await game_with(client, players, target=200)
        stranger = await player(client, "Spectator")
        readers: dict[Any, dict] = {s: players[s]["headers"] for s in range(3)}
        readers["spectator"], readers["anonymous"] = stranger["headers"], {}
        streams: dict[Any, list] = {who: [] for who in readers}
        url = f"{MUX}?games={first},{second}&legal=true"
        tasks = [asyncio.create_task(follow(client, url + ("&personal=true" if isinstance(who, int) else ""),
                                            headers, streams[who])) for who, headers in readers.items()]
        await wait_for(lambda: all(frames(v, "ready") for v in streams.values()))
        for i in range(4):
            await add(client, first, players[i % 3])
            await add(client, second, players[i % 3])
        await wait_for(lambda: all(len(frames(v, "event")) >= 8 for v in streams.values()))
        for task in tasks:
            task.cancel()
        for game_id in (first, second):
            dealt, seed = await secrets_of(client, game_id)
            for who, messages in streams.items():
                for message in (json.dumps(f) for f in frames(messages) if f.get("game_id") == game_id):
                    assert seed not in message, f"{who} saw the seed"
                    for secrets in dealt_in(message):
                        shown = secrets if isinstance(secrets, list) else [secrets]
                        own = dealt[who] if isinstance(who, int) else None
                        assert all(v is None or v == own for v in shown), f"{who} saw {shown}"
        for who, messages in streams.items():
            mine = frames(messages, "turn")
            assert all(("commands" in t) == t["your_turn"] for t in mine)
            assert all(t["your_seat"] == (who if isinstance(who, int) else None) for t in mine)


async def test_a_ticket_opens_it_as_its_player_and_only_it(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        ann, bob = await player(client, "Ann"), await player(client, "Bob")
        game_id = await game_with(client, [ann, bob])
        made = await client.post("/v1/stream-tickets", headers=bob["headers"])
        assert made.status_code == 201, made.text
        ticket = made.json()["ticket"]
        got: list = []
        task = asyncio.create_task(follow(client, f"{MUX}?games={game_id}&personal=true&ticket={ticket}", {}, got))
        await wait_for(lambda: frames(got, "ready"))
        task.cancel()
        assert frames(got, "snapshot")[0]["game"]["your_seat"] == 1 and frames(got, "game.state")
        game_ticket = (await client.post(f"/v1/games/{game_id}/stream-tickets", headers=bob["headers"])).json()
        refused = await client.get(f"{MUX}?games={game_id}&ticket={game_ticket['ticket']}")
        assert refused.status_code == 401 and refused.json()["code"] == "unauthorized"
        refused = await client.get(f"/v1/games/{game_id}/stream?ticket={ticket}")
        assert refused.status_code == 401
        assert (await client.post("/v1/stream-tickets")).status_code == 401


@pytest.mark.parametrize(("query", "headers", "status", "code"), [
    ("", {}, 400, "invalid_request"),
    ("?games=a,a", {}, 400, "invalid_request"),
    ("?games=" + ",".join(f"g{i}" for i in range(33)), {}, 400, "invalid_request"),
    ("?games=nope", {}, 404, "game_not_found"),
    ("?games={g}&after=other:1", {}, 400, "invalid_request"),
    ("?games={g}&after={g}:99", {}, 400, "invalid_request"),
    ("?games={g}", {"Last-Event-ID": "1.2"}, 400, "bad_last_event_id"),
    ("?games={g}", {"Last-Event-ID": "99"}, 400, "bad_last_event_id"),
    ("?games={g}&personal=true", {"Last-Event-ID": "1", "as": "ann"}, 400, "bad_last_event_id"),
    ("?personal=true", {}, 401, "unauthorized"),
    ("?games={g}&ticket=forged.ticket", {}, 401, "unauthorized"),
])
async def test_refusals_come_before_the_stream_as_problems(base_url, query, headers, status, code):
    headers = dict(headers)
    async with httpx.AsyncClient(base_url=base_url) as client:
        ann, bob = await player(client, "Ann"), await player(client, "Bob")
        game_id = await game_with(client, [ann, bob])
        headers = {**headers, **(ann["headers"] if headers.pop("as", None) else {})}
        resp = await client.get(MUX + query.format(g=game_id), headers=headers)
        assert resp.status_code == status, resp.text
        assert resp.headers["content-type"].startswith("application/problem+json")
        assert resp.json()["code"] == code


async def test_revoking_the_token_ends_it_with_an_end_frame(base_url):
    async with httpx.AsyncClient(base_url=base_url) as client:
        ann, bob = await player(client, "Ann"), await player(client, "Bob")
        game_id = await game_with(client, [ann, bob])
        got: list = []
        task = asyncio.create_task(follow(client, f"{MUX}?games={game_id}&personal=true", bob["headers"], got))
        await wait_for(lambda: frames(got, "ready"))
        assert (await client.delete("/v1/players/me/token", headers=bob["headers"])).status_code in (200, 204)
        await asyncio.wait_for(task, 10)
        assert frames(got)[-1] == {"type": "end", "reason": "revoked"}
        assert "id" not in [m for m in got if "data" in m][-1]


async def mux_text(client: httpx.AsyncClient, url: str, headers: dict, seconds: float = 1.5) -> str:
    """The stream's status, then the data it sends in its first `seconds` (or the problem it refuses with)."""
    status: list[int] = []
    got: list[str] = []

    async def read() -> None:
        async with client.stream("GET", url, headers=headers, timeout=30) as resp:
            status.append(resp.status_code)
            if resp.status_code != 200:
                got.append((await resp.aread()).decode())
                return
            async for message in sse_events(resp):
                got.append(message.get("data", ""))

    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(read(), seconds)
    return "\n".join([str(status[0]), *got])


async def test_a_sealed_duplicate_deal_stays_sealed_until_its_last_table_ends(base_url):
    from tests.service.commands.test_sealed_deals import play_to_the_end, register

    async with httpx.AsyncClient(base_url=base_url, timeout=30) as c:
        organiser = await register(c, "Org")
        tid = (await c.post("/v1/tournaments", headers=organiser["headers"], json={
            "kind": "tally", "options": {"target": 9}, "seats": 2, "rounds": 2, "duplicate": True})).json()["tournament_id"]
        players = {p["id"]: p for p in [await register(c, name) for name in ("Ada", "Ben", "Cy", "Dee")]}
        joined = [await c.post(f"/v1/tournaments/{tid}/register", headers=p["headers"], json={}) for p in players.values()]
        assert all(r.status_code == 200 for r in joined)
        first, second = (await c.post(f"/v1/tournaments/{tid}/start",
                                      headers=organiser["headers"])).json()["rounds"][0]["tables"]
        seats = {t["game_id"]: [players[p] for p in t["players"]] for t in (first, second)}
        await play_to_the_end(c, first["game_id"], seats[first["game_id"]])
        log = (await c.get(f"/v1/games/{first['game_id']}/events", headers={"Authorization": "Bearer admin-secret"}))
        events = log.json()["events"]
        seed = next(e for e in events if e["type"] == "table.SeedRevealed")["data"]["seed"]
        deal = '"secrets":' + json.dumps(next(e for e in events if e["type"] == "tally.SecretsDealt")["data"]["secrets"],
                                         separators=(",", ":"))
        games = [first["game_id"], second["game_id"]]
        urls = [f"{MUX}?games={g}&after={g}:0&personal=true" for g in games]
        url = f"{MUX}?games={','.join(games)}&after={games[0]}:0,{games[1]}:0&personal=true"
        viewers = {"organiser": organiser["headers"],
                   **{f"{name} {p['id']}": p["headers"] for name, t in (("finished", first), ("running", second))
                      for p in seats[t["game_id"]]}}
        statuses = set()
        for who, headers in viewers.items():
            for each in [*urls, url]:
                body = await mux_text(c, each, headers)
                statuses.add(body.split("\n", 1)[0])
                assert seed not in body and deal not in body, f"{who} read the deal through {each}: {body[:300]}"
        anonymous = await c.get(url.replace("&personal=true", ""))
        assert anonymous.status_code == 403 and anonymous.json()["code"] == "deal_sealed"
        assert statuses == {"200", "403"}, statuses  # the finished table's players see it, sealed; others may not

        await play_to_the_end(c, second["game_id"], seats[second["game_id"]])
        body = await mux_text(c, url.replace("&personal=true", ""), {})
        assert body.startswith("200") and seed in body


def stela_serve(dsn: str, port: int) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": dsn, "STELA_PORT": str(port), "STELA_LOG_LEVEL": "warning",
           "STELA_METRICS_PORT": "0", "STELA_HEARTBEAT_SECONDS": "0.5"}
    env.pop("REDIS_URL", None)
    server = subprocess.Popen([str(Path(sys.executable).with_name("stela")), "serve"], env=env,
                              stderr=subprocess.DEVNULL)
    wait_healthy(f"http://127.0.0.1:{port}", server)
    return server


def test_heartbeats_an_end_frame_when_the_server_stops_and_each_game_resumed_after_its_restart():
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with fresh_database("stela_mux_stop") as dsn:
        server = stela_serve(dsn, port)
        try:
            got, games, players = asyncio.run(_follow_until_stopped(url, server))
            server.wait(30)
            server = stela_serve(dsn, port)
            again, moved = asyncio.run(_resume_after_restart(url, games, players, last_id(got)))
        finally:
            server.terminate()
            server.wait(30)
    assert frames(got)[-1] == {"type": "end", "reason": "closing"}
    last = [m for m in got if "data" in m][-1]
    assert last.get("retry") == "2000" and "id" not in last
    assert not frames(again, "snapshot") and events_of(again, games[1]) == []
    assert moved and events_of(again, games[0]) == moved, "exactly the events after the position the id held"


async def _two_coatl_games(client: httpx.AsyncClient) -> tuple[list[str], list[dict]]:
    ann, bob = await player(client, "Ann"), await player(client, "Bob")
    games = []
    for _ in range(2):
        game_id = (await client.post("/v1/games", headers=ann["headers"], json={"kind": "coatl", "seats": 2})).json()["id"]
        await client.post(f"/v1/games/{game_id}/join", headers=bob["headers"], json={})
        assert (await client.post(f"/v1/games/{game_id}/start", headers=ann["headers"])).status_code == 200
        games.append(game_id)
    return games, [ann, bob]


async def _follow_until_stopped(url: str, server: subprocess.Popen) -> tuple[list, list[str], list[dict]]:
    got: list = []
    async with httpx.AsyncClient(base_url=url) as client:
        games, players = await _two_coatl_games(client)
        task = asyncio.create_task(follow(client, f"{MUX}?games={','.join(games)}&personal=true",
                                          players[0]["headers"], got))
        await wait_for(lambda: frames(got, "ready"))
        personal = int(last_id(got).split(".")[-1][1:])
        assert abs(personal - time.time() * 1000) < 60_000, "a fresh cursor is the time of the connection"
        await wait_for(lambda: any(m.get("comment") == "heartbeat" for m in got), timeout=5)
        server.send_signal(signal.SIGTERM)
        await asyncio.wait_for(task, 20)
        # told `closing`, a client that reconnects at once finds the port closed, not a new stream ended again
        # (on a new connection: the one the stream ended on is closed by the server once its answer is done,
        # and a request sent on it in that instant meets the close, not the listener)
        async with httpx.AsyncClient(base_url=url) as reconnecting:
            with pytest.raises(httpx.ConnectError):
                await reconnecting.get(f"{MUX}?games={games[0]}", headers=players[0]["headers"])
    return got, games, players


async def _resume_after_restart(url: str, games: list[str], players: list[dict], seen: str) -> tuple[list, list[int]]:
    """Both seats choose their opening prophecies in the first game, then Ann reconnects with `seen`; also
    the versions of the events Ann may see after the position `seen` held (the events endpoint's answer)."""
    again: list = []
    async with httpx.AsyncClient(base_url=url) as client:
        for who in players:
            legal = (await client.get(f"/v1/games/{games[0]}/legal", headers=who["headers"])).json()
            done = await client.post(f"/v1/games/{games[0]}/commands", headers=who["headers"], json={
                "command": legal["commands"][0], "expected_version": legal["version"]})
            assert done.status_code == 200, done.text
        task = asyncio.create_task(follow(client, f"{MUX}?games={','.join(games)}&personal=true",
                                          {**players[0]["headers"], "Last-Event-ID": seen}, again))
        await wait_for(lambda: frames(again, "ready"))
        task.cancel()
        after = seen.split(".")[0]
        shown = (await client.get(f"/v1/games/{games[0]}/events?after={after}", headers=players[0]["headers"])).json()
    return again, [e["version"] for e in shown["events"]]
