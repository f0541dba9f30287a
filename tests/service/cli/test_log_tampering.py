"""Tampering an operator (or an intruder with database access) might try, each caught by what
`stela verify --log` and `stela witness` run (`service.cli.transparency`): a finished game deleted, one
event rewritten with its chain recomputed, a seed swapped before its reveal, and a log forked for one
client; and a tournament's report with one result rewritten and its chain recomputed. Each test first shows the
honest case passes, so the catch is the tampering's. The last two run the commands themselves against served
logs: their exit codes are what a third party's script sees."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
from litestar.testing import AsyncTestClient

import domain.tournament as T
import domain.tournament.competition as C
from domain.kernel import seed_commitment
from domain.tournament.report import report
from service.cli.main import main
from service.cli.transparency import SplitView, audit_log, verify_in_log, witness_round
from service.commands import verify as V
from service.commands.competition import redacted
from service.commands.notes import COSIGNATURE, Signer, Verifier, cosigned_by
from service.commands.tournaments import verify_report
from service.commands.verify import parse_ndjson, verify_log
from service.edge.app import create_app
from service.store.memory import MemoryStore
from service.store.protocol import GENESIS_HASH, StoredEvent, event_hash
from testkit.api import play_to_end, player, started_game
from testkit.live import serving
from testkit.log import checkpointed
from tests.service.commands import test_tournament_service as cups

LOG_KEY = Signer.generate("test.example/stela")
KEY = Verifier.parse(LOG_KEY.verifier())


@contextlib.asynccontextmanager
async def service(settings: Any, games: Any, store: Any = None) -> AsyncIterator[AsyncTestClient]:
    """A service process signing with LOG_KEY (a new one each time: nothing cached from before)."""
    app = create_app(msgspec.structs.replace(settings, log_key=LOG_KEY.private_text()), games=games, store=store)
    async with AsyncTestClient(app, timeout=30) as client:
        yield client


async def finished(client: AsyncTestClient) -> str:
    game_id, players = await started_game(client, "tally", 2)
    await play_to_end(client, game_id, players)
    await checkpointed(client, game_id, 3)
    return game_id


async def export(client: AsyncTestClient, game_id: str) -> list[Any]:
    resp = await client.get(f"/v1/games/{game_id}/export")
    assert resp.status_code == 200, resp.text
    return parse_ndjson(resp.content)


async def rechain(dsn: str, game_id: str, change: Any) -> None:
    """The operator's rewrite: `change(version, data)` gives new data (or None), and every hash from there on
    is recomputed so that the stream's own chain verifies again."""
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch("SELECT version, type, data::text FROM events WHERE stream_id = $1 ORDER BY version",
                                game_id)
        prev = "0" * 64
        for version, type_, text in rows:
            data = msgspec.json.decode(text)
            data = change(version, data) or data
            h = event_hash(prev, game_id, version, type_, data)
            await conn.execute("UPDATE events SET data = $3::text::jsonb, prev_hash = $4, hash = $5 "
                               "WHERE stream_id = $1 AND version = $2", game_id, version,
                               msgspec.json.encode(data).decode(), prev, h)
            prev = h
        await conn.execute("DELETE FROM snapshots WHERE stream_id = $1", game_id)
    finally:
        await conn.close()


def mine(problems: list[str], game_id: str) -> list[str]:
    return [p for p in problems if game_id in p]


async def test_a_deleted_finished_game_is_caught_by_the_log_audit(settings, games, pg_dsn):
    async with service(settings, games) as client:
        game_id = await finished(client)
        _, problems = await audit_log(client, KEY)
        assert not mine(problems, game_id) and "the leaves served do not hash to the checkpoint's root" not in problems
    conn = await asyncpg.connect(pg_dsn)
    try:
        for table in ("events", "streams", "snapshots"):
            await conn.execute(f"DELETE FROM {table} WHERE stream_id = $1", game_id)
        with pytest.raises(asyncpg.InsufficientPrivilegeError):  # and its leaves cannot follow it
            await conn.execute("DELETE FROM log_entries WHERE stream_id = $1", game_id)
    finally:
        await conn.close()
    async with service(settings, games) as client:
        _, problems = await audit_log(client, KEY)
    assert mine(problems, game_id) == [f"{game_id}: logged as finished, but the service has no log of it (404)"]


async def test_a_rewritten_event_with_its_chain_recomputed_is_caught_by_verify(settings, games, pg_dsn):
    async with service(settings, games) as client:
        game_id = await finished(client)
        assert await verify_in_log(client, await export(client, game_id), KEY) == []
    await rechain(pg_dsn, game_id, lambda version, data: {**data, "note": "rewritten"} if version == 5 else None)
    async with service(settings, games) as client:
        events = await export(client, game_id)
        assert not [p for p in verify_log(events, games).problems if "hash" in p]  # its own chain verifies again
        problems = await verify_in_log(client, events, KEY)
    assert any(p.startswith("v") and "holds no such leaf" in p for p in problems), problems
    assert not any(p.startswith("v1:") for p in problems)  # the creation before the rewrite is still the logged one


async def test_a_seed_swapped_before_the_reveal_is_caught_by_verify(settings, games, pg_dsn):
    async with service(settings, games) as client:
        host = await player(client, "Host")
        resp = await client.post("/v1/games", json={"kind": "tally", "seats": 2, "options": {}}, headers=host["headers"])
        game_id = resp.json()["id"]
        await checkpointed(client, game_id, 1)  # the commitment is logged (and checkpointed) at creation
    chosen = "ee" * 32  # a seed the operator prefers, and its commitment, put in the creation's place
    await rechain(pg_dsn, game_id, lambda version, data: {**data, "seed": chosen, "seed_commitment": seed_commitment(
        bytes.fromhex(chosen))} if version == 1 else None)
    async with service(settings, games) as client:
        other = await player(client, "Guest")
        assert (await client.post(f"/v1/games/{game_id}/join", json={}, headers=other["headers"])).status_code == 200
        assert (await client.post(f"/v1/games/{game_id}/start", headers=host["headers"])).status_code == 200
        await play_to_end(client, game_id, [host, other])
        await checkpointed(client, game_id, 3)
        events = await export(client, game_id)
        assert verify_log(events, games).ok  # the export alone is consistent: the swapped seed is revealed
        problems = await verify_in_log(client, events, KEY)
    assert any(p.startswith("v1:") for p in problems), problems


async def test_a_log_forked_for_one_witness_is_refused_as_a_split_view(settings, games, tmp_path):
    witness = Signer.generate("witness.example/w1", COSIGNATURE)
    state = tmp_path / "witness.json"
    honest, fork = MemoryStore(), MemoryStore()
    async with service(settings, games, honest) as client:
        await finished(client)
        seen = await witness_round(client, witness, state)
        await finished(client)
        assert (await witness_round(client, witness, state))["size"] > seen["size"]  # an extension: cosigned
        served = (await client.get("/v1/log/checkpoint")).text
        assert cosigned_by(served, Verifier.parse(witness.verifier())) is not None
    before = state.read_text()
    async with service(settings, games, fork) as client:  # the same key signs another history for this witness
        for _ in range(3):
            await finished(client)
        with pytest.raises(SplitView, match="does not extend"):
            await witness_round(client, witness, state)
        assert cosigned_by((await client.get("/v1/log/checkpoint")).text, Verifier.parse(witness.verifier())) is None
    assert state.read_text() == before  # the witness still holds the honest checkpoint


async def finished_over_http(url: str, count: int = 1) -> list[str]:
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        return [await finished(client) for _ in range(count)]


def test_stela_verify_and_stela_witness_exit_non_zero_on_a_deleted_game_and_a_forked_log(memory_settings, games,
                                                                                          tmp_path, capsys):
    settings = msgspec.structs.replace(memory_settings, log_key=LOG_KEY.private_text())
    honest, fork = MemoryStore(), MemoryStore()
    state = tmp_path / "witness.json"

    def witness(url: str) -> int:
        return main(["witness", url, "--key", str(tmp_path / "witness.key"), "--name", "witness.example/w1",
                     "--state", str(state), "--log-key", KEY.text()])

    def audit(url: str) -> dict[str, Any]:
        capsys.readouterr()
        code = main(["verify", "--log", url, "--log-key", KEY.text()])
        return {"exit": code, **json.loads(capsys.readouterr().out.strip().splitlines()[-1])}

    with serving(create_app(settings, games=games, store=honest)) as url:
        [game_id] = asyncio.run(finished_over_http(url))
        assert audit(url) == {"exit": 0, "leaves": 3, "problems": []}
        assert witness(url) == 0
    seen = state.read_text()
    for kept in (honest.streams, honest.snapshots, honest.created):  # the operator deletes the finished game
        kept.pop(game_id, None)
    with serving(create_app(settings, games=games, store=honest)) as url:
        assert audit(url) == {"exit": 1, "leaves": 3, "problems": [
            f"{game_id}: logged as finished, but the service has no log of it (404)"]}
    with serving(create_app(settings, games=games, store=fork)) as url:  # the same key, another history
        asyncio.run(finished_over_http(url, 2))
        capsys.readouterr()
        assert witness(url) == 3
        assert "does not extend" in json.loads(capsys.readouterr().out)["split_view"]
    assert state.read_text() == seen


async def finished_cup(url: str, streams: Any) -> dict[str, Any]:
    """test_tournament_service's cup of one round run to its end over HTTP, its three leaves checkpointed; its
    report (getTournamentReport)."""
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        await cups.test_a_cup_over_http_is_paired_recorded_and_finished_by_the_services_own_workers(client)
        [stream] = [s for s in list(streams) if s.startswith("tournament-")]
        await checkpointed(client, stream, 3)
        resp = await client.get(f"/v1/tournaments/{stream.removeprefix('tournament-')}/report")
        assert resp.status_code == 200, resp.text
        return resp.json()


def rewritten(document: dict[str, Any], change: Any) -> dict[str, Any]:
    """The report an operator would publish after `change(event)` rewrote its log (a new dict or None): every
    hash from there on recomputed, and the report derived again from the rewritten log, so the file is
    consistent on its own."""
    log, prev = [], "0" * 64
    for event in document["log"]:
        event = change(event) or event
        digest = event_hash(prev, event["stream_id"], event["version"], event["type"], event["data"])
        log.append({**event, "prev_hash": prev, "hash": digest})
        prev = digest
    state = T.fold([T.decode_event(e["type"], e["data"]) for e in log])
    return {**msgspec.to_builtins(report(state)), "log": log}


def test_stela_verify_report_proves_a_tournaments_leaves_and_catches_a_result_rewritten_with_its_chain(
        memory_settings, games, tmp_path, capsys):
    """A finished tournament's report carries its chain (the stored events' hashes, under the stream id its log
    names) and `stela verify report.json --log URL` proves its creation, end and seed leaves. A result rewritten
    in the report, its chain recomputed and the report derived again, verifies on its own, but its end and seed
    leaves are not in the log: exit 1 naming their versions. The whole-log audit checks the cup's leaves against its
    published events too: the tournament deleted, its leaves name a competition the service no longer has."""
    settings = msgspec.structs.replace(memory_settings, log_key=LOG_KEY.private_text())
    store = MemoryStore()
    path = tmp_path / "report.json"

    def verify(document: dict[str, Any], url: str) -> dict[str, Any]:
        path.write_text(json.dumps(document))
        capsys.readouterr()
        code = main(["verify", str(path), "--log", url, "--log-key", KEY.text()])
        return {"exit": code, **json.loads(capsys.readouterr().out.strip().splitlines()[-1])}

    with serving(create_app(settings, games=games, store=store)) as url:
        honest = asyncio.run(finished_cup(url, store.streams))
        assert verify(honest, url) == {"exit": 0, "ok": True, "problems": []}
        result = next(e for e in honest["log"] if e["type"] == "tournament.ResultRecorded")
        scores = [result["data"]["scores"][0] + 5, *result["data"]["scores"][1:]]  # the first seat's score raised
        forged = rewritten(honest, lambda e: {**e, "data": {**e["data"], "scores": scores}}
                           if e["version"] == result["version"] else None)
        assert forged["rounds"] != honest["rounds"] and verify_report(forged) == []  # the file alone verifies
        assert V.chain_problems(V.published_events(forged["log"])) == []  # and so does its chain
        caught = verify(forged, url)
        capsys.readouterr()
        audited = main(["verify", "--log", url, "--log-key", KEY.text()])  # the whole log: the cup and its game
        assert (audited, json.loads(capsys.readouterr().out)) == (0, {"leaves": 6, "problems": []})
    [stream] = {e["stream_id"] for e in honest["log"]}
    stored = asyncio.run(store.read_stream(stream))
    assert [(e["version"], e["prev_hash"], e["hash"]) for e in honest["log"]] == [
        (e.version, e.prev_hash, e.hash) for e in stored]
    ended, seed = (e["version"] for e in honest["log"]
                   if e["type"] in ("tournament.TournamentEnded", "tournament.SeedRevealed"))
    assert caught["exit"] == 1 and [p.split(":")[0] for p in caught["problems"]] == [f"v{ended}", f"v{seed}"], caught
    assert all("the log holds no such leaf" in p for p in caught["problems"])
    for kept in (store.streams, store.snapshots, store.created):  # the operator deletes the finished tournament
        kept.pop(stream, None)
    with serving(create_app(settings, games=games, store=store)) as url:
        capsys.readouterr()
        assert main(["verify", "--log", url, "--log-key", KEY.text()]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]  # (its game's export, its tournament gone, 404s too)
    assert f"{stream}: logged as finished, but the service has no log of it (404)" in problems, problems


RECORDED = Path(__file__).parents[2] / "domain" / "tournament" / "logs"  # logs written by older code, every format


@pytest.mark.parametrize("name", sorted(p.stem for p in RECORDED.glob("*.json")))
def test_a_recorded_competition_log_as_published_after_its_end_gives_back_its_chain_and_leaves(name):
    """Every format's recorded log (the arenas' with the tags renamed since: `arena.PlayerLeft` shown as
    `tournament.PlayerWithdrew`), stored with its chain and shown as every reader sees it once it has ended, is
    turned back into the stored events: the chain recomputes and the leaves are the ones its events wrote."""
    prev, stored = GENESIS_HASH, []
    for version, row in enumerate(json.loads((RECORDED / f"{name}.json").read_text())["events"], start=1):
        digest = event_hash(prev, f"x-{name}", version, row["type"], row["data"])
        stored.append(StoredEvent(position=version, tx=version, stream_id=f"x-{name}", version=version,
                                  type=row["type"], data=row["data"], metadata={}, at=datetime.now(UTC),
                                  prev_hash=prev, hash=digest))
        prev = digest
    state = C.fold([C.decode_event(e.type, e.data) for e in stored])
    published = json.loads(json.dumps([redacted(state, e) for e in stored]))
    back = V.published_events(published)
    assert C.finished(state) and V.chain_problems(back) == []
    assert V.logged_leaves(back) == V.logged_leaves(stored) and len(V.logged_leaves(stored)) == 3
    assert [e.type for e in back] == [e.type for e in stored]
