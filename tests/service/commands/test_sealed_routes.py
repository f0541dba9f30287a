"""Every GET route of the OpenAPI document, walked as a non-seat while a duplicate deal is sealed (issue 44).

Sealing is one rule, asked first: until the deal's last table ends, someone without a seat at a table
must learn nothing of it, not even its version, through any answer, errors included. The two tables of
one deal are at different versions (one has finished, the other has made one move), so every route that
names a game is asked of both, with the same arguments (versions below, at and far above either
table's, resume positions, seats), and the answers must be the same once the two game ids are written
alike. Every other route is asked twice, when the deal is paired and when one table has finished, and
must answer the same (the read models hold the deal back: `projections.sealed`). The transparency log
is one for every game: before each of those two walks it integrates all that has committed (a checkpoint
signed on demand), and its leaves, checkpoints and proofs (of both tables, from the size it had when the
deal was paired) must not change when a table ends (`service.commands.transparency` holds them back).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from service.edge.app import create_app
from tests.service.commands.test_sealed_deals import duplicate_deal, play_to_the_end, register
from tests.service.edge.test_log_routes import LOG_KEY
from testkit.api import found
from testkit.live import serving

DOCUMENT = json.loads((Path(__file__).parents[3] / "openapi" / "openapi.json").read_text())
GETS = sorted(path for path, ops in DOCUMENT["paths"].items() if "get" in ops)
# answers about the process rather than the data (health, lag, the server's OAuth metadata): not walked
NOT_DATA = {"/healthz", "/readyz", "/.well-known/oauth-authorization-server", "/v1/oauth/authorize"}
VERSIONS = ["1", "2", "3", "7", "40", "999999"]
# the arguments every game route is asked with, besides none at all
QUERIES = {"/v1/games/{game_id}/events": [f"?after={v}" for v in ("0", "2", "7", "999999")] + ["?as_seat=0",
                                                                                                  "?as_seat=5"],
           "/v1/games/{game_id}": ["?min_version=3", "?min_version=999999"],
           "/v1/games/{game_id}/legal": ["?min_version=3", "?min_version=999999"],
           "/v1/games/{game_id}/versions/{version}": ["", "?seat=0", "?seat=5"]}


@pytest.fixture
def base_url(settings, games):
    with serving(create_app(msgspec.structs.replace(settings, log_key=LOG_KEY.private_text()), games=games)) as url:
        yield url


def _normalised(text: str, ids: dict[str, str]) -> str:
    """`text` with each id of `ids` written as its name, and times and durations blanked."""
    for value, name in ids.items():
        text = text.replace(value, name)
    text = re.sub(r"\d{4}-\d\d-\d\dT[\d:.+Z-]+", "<time>", text)
    return re.sub(r'"(retry_after|expires_at|server_time)":[^,}]+', r'"\1":-', text)


async def _answer(c: httpx.AsyncClient, url: str, headers: dict[str, str], ids: dict[str, str]) -> str:
    """Status, `code` and body of one GET (a stream: its status and what it sends in its first moment)."""
    if url.split("?")[0].endswith("stream"):
        return _normalised(await _stream_start(c, url, headers), ids)
    r = await c.get(url, headers=headers)
    return _normalised(f"{r.status_code} {r.text}", ids)


async def _stream_start(c: httpx.AsyncClient, url: str, headers: dict[str, str]) -> str:
    """A stream's status and its first frame (a refusal: its whole body), however long a busy machine takes."""
    text = ""
    async with c.stream("GET", url, headers=headers, timeout=60) as resp:
        async for chunk in resp.aiter_text():
            text += chunk
            if resp.status_code == 200 and "\n\n" in text:  # the first frame (a snapshot, or a bare `retry:`)
                break
    return f"{resp.status_code}\n{text}"


def _game_urls(path: str, game: str) -> list[tuple[str, dict[str, str]]]:
    """Every (url, extra headers) a game route is asked with for `game`."""
    paths = [path.replace("{version}", v) for v in VERSIONS] if "{version}" in path else [path]
    urls = [(p.replace("{game_id}", game) + q, {}) for p in paths for q in QUERIES.get(path, [""])]
    if path.endswith("/stream"):
        urls += [(path.replace("{game_id}", game), {"Last-Event-ID": v}) for v in ("0", "3", "999999")]
    return urls


def _other_urls(path: str, ids: dict[str, str], size: int) -> list[str]:
    """The url(s) a route that names no game is asked with (the multiplexed stream follows both tables; the
    log's routes from `size`, its size when the deal was paired)."""
    names = {name: value for value, name in ids.items()}
    if path == "/v1/log/checkpoints/{size}":
        return [f"/v1/log/checkpoints/{n}" for n in (size, size + 1, size + 2)]
    if path == "/v1/log/leaves":
        return ["/v1/log/leaves", f"/v1/log/leaves?start={max(0, size - 5)}&limit=1000"]
    if path == "/v1/log/proofs/consistency":
        return [f"/v1/log/proofs/consistency?first=1&second={n}" for n in (size, size + 1, size + 2)]
    if path == "/v1/log/proofs/inclusion/{stream_id}":
        return [f"/v1/log/proofs/inclusion/{names[n]}{q}" for n in ("GAME_A", "GAME_B", "TOURNAMENT")
                for q in ("", f"?size={size}", f"?size={size + 2}")]
    if path == "/v1/stream":
        return [f"/v1/stream?games={names['GAME_A']}&after={a}" for a in ("0", "3", "999999")] + \
               [f"/v1/stream?games={names['GAME_B']}&after={a}" for a in ("0", "3", "999999")]
    filled = path
    for param, name in (("{tournament_id}", "TOURNAMENT"), ("{player_id}", "PLAYER_A0"), ("{kind}", "tally"),
                        ("{arena_id}", "TOURNAMENT")):
        filled = filled.replace(param, names.get(name, name))
    urls = [filled]
    if path == "/v1/games":
        urls += [f"/v1/games?status={s}" for s in ("active", "finished")] + ["/v1/games?kind=tally"]
    return urls


async def _walk_others(c: httpx.AsyncClient, viewers: dict[str, dict[str, str]], ids: dict[str, str], size: int
                       ) -> dict[str, str]:
    answers = {}
    for path in GETS:
        if "{game_id}" in path or path in NOT_DATA:
            continue
        for url in _other_urls(path, ids, size):
            for who, headers in viewers.items():
                answers[f"{who} {url}"] = await _answer(c, url, headers, ids)
    return answers


async def test_no_get_route_answers_a_non_seat_differently_for_two_tables_of_a_sealed_deal(base_url):
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as c:
        organiser, tid, _, (a, b), seats = await duplicate_deal(c)
        ids = {a["game_id"]: "GAME_A", b["game_id"]: "GAME_B", tid: "TOURNAMENT", organiser["id"]: "ORGANISER",
               **{p: f"PLAYER_A{i}" for i, p in enumerate(a["players"])},
               **{p: f"PLAYER_B{i}" for i, p in enumerate(b["players"])}}
        outsider = await register(c, "Outsider")
        ids[outsider["id"]] = "OUTSIDER"
        viewers = {"spectator": {}, "organiser": organiser["headers"], "outsider": outsider["headers"]}
        await found(lambda: _caught_up(c))
        size = await _logged(c)
        paired = await _walk_others(c, viewers, ids, size)

        await play_to_the_end(c, a["game_id"], seats[a["game_id"]])
        first = seats[b["game_id"]][0]
        assert (await c.post(f"/v1/games/{b['game_id']}/commands", headers=first["headers"],
                             json={"command": {"type": "tally.Add", "amount": 3}})).status_code == 200
        await found(lambda: _caught_up(c))

        walked, differ = 0, []
        for path in GETS:
            if "{game_id}" not in path:
                continue
            for (url_a, extra), (url_b, _) in zip(_game_urls(path, a["game_id"]), _game_urls(path, b["game_id"])):
                for who, headers in viewers.items():
                    seen_a = await _answer(c, url_a, {**headers, **extra}, ids)
                    seen_b = (await _answer(c, url_b, {**headers, **extra}, ids)).replace("GAME_B", "GAME_A")
                    walked += 1
                    if seen_a != seen_b:
                        differ.append(f"{who} {url_a} {extra}:\n  A: {seen_a[:300]}\n  B: {seen_b[:300]}")
        for body in ({"command": {"type": "tally.Add", "amount": 3}},
                     {"command": {"type": "tally.Add", "amount": 3}, "expected_version": 1}):
            sent = [_normalised(f"{r.status_code} {r.text}", ids).replace("GAME_B", "GAME_A") for r in [
                await c.post(f"/v1/games/{g}/commands", headers=outsider["headers"], json=body)
                for g in (a["game_id"], b["game_id"])]]
            if sent[0] != sent[1]:  # a command's refusal is a read of the game too
                differ.append(f"outsider's command {body}:\n  A: {sent[0][:300]}\n  B: {sent[1][:300]}")
        await _logged(c)
        later = await _walk_others(c, viewers, ids, size)
        differ += [f"{k}:\n  paired: {v[:300]}\n  later:  {later[k][:300]}" for k, v in paired.items() if later[k] != v]
        assert not differ, "\n".join(differ)
        assert walked > 100 and len(paired) > 30


async def _logged(c: httpx.AsyncClient) -> int:
    """Integrate into the log all that has committed (the read models have caught up with the same global
    log, below the same horizon) and sign its checkpoint; its size."""
    note = (await c.post("/v1/log/checkpoints")).text
    return int(note.split("\n")[1])


async def _caught_up(c: httpx.AsyncClient) -> bool:
    lags = (await c.get("/readyz")).json()["details"].get("projections", {})
    return bool(lags) and all(v["events"] == 0 for v in lags.values())
