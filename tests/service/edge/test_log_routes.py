"""The transparency log over HTTP: a finished game's creation, end and seed leaves, a signed checkpoint
that verifies with the published key, inclusion and consistency proofs that verify against it, the
leaves paged, a witness's cosignature kept and served, and the checkpoint worker signing on its own."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
import warnings
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar import Litestar, post
from litestar.testing import AsyncTestClient

from domain.transparency import merkle
from service.commands.notes import COSIGNATURE, Signer, Verifier, open_checkpoint, split
from service.commands.verify import logged_leaves
from service.edge import schemas
from service.edge.app import create_app
from service.edge.routes.transparency import Cosignature
from service.edge.schemas import decode_strictly
from service.store.memory import MemoryStore
from service.workers import arenas as arena_worker
from testkit.api import auth, found, play_to_end, started_game
from testkit.log import checkpointed
from tests.service.commands import test_arenas as arenas
from tests.service.commands import test_tournament_service as cups

LOG_KEY = Signer.generate("test.example/stela")
DOCUMENT = Path(__file__).resolve().parents[3] / "openapi" / "openapi.json"


@pytest.fixture
async def logged(settings, games):
    app = create_app(msgspec.structs.replace(settings, log_key=LOG_KEY.private_text()), games=games)
    async with AsyncTestClient(app, timeout=30) as c:
        yield c


async def finished_game(client) -> str:
    game_id, players = await started_game(client, "tally", 2)
    await play_to_end(client, game_id, players)
    await checkpointed(client, game_id, 3)
    return game_id


async def test_a_finished_game_is_proven_in_a_signed_checkpoint(logged):
    game_id = await finished_game(logged)
    info = (await logged.get("/v1/log/")).json()
    assert info["public_key"] == LOG_KEY.verifier() and info["origin"] == "test.example/stela"
    resp = await logged.post("/v1/log/checkpoints")
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/plain")
    checkpoint = open_checkpoint(resp.text, Verifier.parse(info["public_key"]))
    proof = (await logged.get(f"/v1/log/proofs/inclusion/{game_id}", params={"size": checkpoint.size})).json()
    assert [msgspec.json.decode(item["body"])["leaf"] for item in proof["leaves"]] == ["created", "ended", "seed"]
    for item in proof["leaves"]:
        path = [base64.b64decode(h) for h in item["path"]]
        assert merkle.verify_inclusion(item["index"], checkpoint.size, merkle.leaf_hash(item["body"].encode()),
                                       path, checkpoint.root)
    page = (await logged.get("/v1/log/leaves", params={"start": proof["leaves"][0]["index"], "limit": 1})).json()
    assert page["leaves"][0]["body"] == proof["leaves"][0]["body"]


async def test_a_later_checkpoint_is_proven_consistent_with_an_earlier_one(logged):
    await finished_game(logged)
    first = open_checkpoint((await logged.post("/v1/log/checkpoints")).text, Verifier.parse(LOG_KEY.verifier()))
    await finished_game(logged)
    second = open_checkpoint((await logged.post("/v1/log/checkpoints")).text, Verifier.parse(LOG_KEY.verifier()))
    assert second.size > first.size
    proof = (await logged.get("/v1/log/proofs/consistency", params={"first": first.size, "second": second.size})).json()
    path = [base64.b64decode(h) for h in proof["path"]]
    assert merkle.verify_consistency(first.size, second.size, first.root, second.root, path)
    assert (await logged.get(f"/v1/log/checkpoints/{first.size}")).text.startswith(f"test.example/stela\n{first.size}\n")


async def test_a_witness_cosignature_is_checked_kept_and_served_with_the_checkpoint(logged):
    await finished_game(logged)
    note = (await logged.post("/v1/log/checkpoints")).text
    witness = Signer.generate("witness.example/w1", COSIGNATURE)
    line = witness.cosign(split(note)[0], int(time.time()))
    resp = await logged.post("/v1/log/cosignatures", json={"note": note + line, "witness_key": witness.verifier()})
    assert resp.status_code == 200, resp.text
    assert line in (await logged.get("/v1/log/checkpoint")).text or line in resp.text
    forged = note + Signer.generate("witness.example/w1", COSIGNATURE).cosign(split(note)[0], int(time.time()))
    refused = await logged.post("/v1/log/cosignatures", json={"note": forged, "witness_key": witness.verifier()})
    assert refused.status_code == 422 and refused.json()["code"] == "invalid_cosignature"


async def test_proofs_need_a_published_size(logged):
    await finished_game(logged)
    size = open_checkpoint((await logged.post("/v1/log/checkpoints")).text, Verifier.parse(LOG_KEY.verifier())).size
    assert (await logged.get("/v1/log/proofs/consistency", params={"first": 1, "second": size + 10})).status_code == 404
    assert (await logged.get("/v1/log/proofs/inclusion/no-such-game")).status_code == 404
    assert (await logged.get(f"/v1/log/checkpoints/{size + 10}")).status_code == 404


async def test_the_worker_signs_a_checkpoint_at_its_interval_once_the_log_grew_and_not_otherwise(memory_settings, games):
    """No POST here: the worker alone (STELA_LOG_CHECKPOINT_SECONDS) puts a finished game in a signed checkpoint,
    and signs no other while nothing is written."""
    settings = msgspec.structs.replace(memory_settings, log_key=LOG_KEY.private_text(), log_checkpoint_seconds=0.05)
    app = create_app(settings, games=games, store=MemoryStore())
    async with AsyncTestClient(app, timeout=30) as client:
        worker = app.state.services.checkpoints
        cycles = 0
        issue = worker.transparency.issue

        async def counted():
            nonlocal cycles
            cycles += 1
            return await issue()

        worker.transparency.issue = counted
        game_id, players = await started_game(client, "tally", 2)
        await play_to_end(client, game_id, players)
        deadline = time.monotonic() + 30
        while (resp := await client.get(f"/v1/log/proofs/inclusion/{game_id}")).status_code != 200 \
                or len(resp.json()["leaves"]) < 3:
            assert time.monotonic() < deadline, "the worker signed no checkpoint holding the game"
            await asyncio.sleep(0.05)
        checkpoint = open_checkpoint((await client.get("/v1/log/checkpoint")).text, Verifier.parse(LOG_KEY.verifier()))
        assert checkpoint.size == resp.json()["size"] and worker.issued >= 1
        issued, seen = worker.issued, cycles
        while cycles < seen + 5:  # five more rounds of the worker with nothing written: no new checkpoint
            assert time.monotonic() < deadline, "the worker stopped running"
            await asyncio.sleep(0.05)
        assert worker.issued == issued
        assert (await client.get("/v1/log/checkpoint")).text.startswith(f"test.example/stela\n{checkpoint.size}\n")


def test_the_openapi_examples_are_one_log_whose_checkpoint_and_proofs_verify():
    """What a reader of the OpenAPI document sees: the example key signs the example checkpoint, and the example
    inclusion proofs verify against it."""
    operations = {op["operationId"]: op for path in json.loads(DOCUMENT.read_text())["paths"].values()
                  for op in path.values()}

    def example(operation: str, media: str = "application/json"):
        [found] = operations[operation]["responses"]["200"]["content"][media]["examples"].values()
        return found["value"]

    info = example("getLogInfo")
    checkpoint = open_checkpoint(example("getCheckpoint", "text/plain; charset=utf-8"), Verifier.parse(info["public_key"]))
    assert checkpoint.size == info["size"] and checkpoint.origin == info["origin"]
    proof = example("getInclusionProof")
    assert proof["size"] == checkpoint.size and base64.b64decode(proof["root"]) == checkpoint.root
    assert [msgspec.json.decode(item["body"])["leaf"] for item in proof["leaves"]] == ["created", "ended", "seed"]
    for item in proof["leaves"]:
        leaf = merkle.leaf_hash(item["body"].encode())
        assert base64.b64decode(item["leaf_hash"]) == leaf
        assert merkle.verify_inclusion(item["index"], checkpoint.size, leaf, [base64.b64decode(h) for h in item["path"]],
                                       checkpoint.root)
    page = example("listLogLeaves")
    assert page["leaves"][0]["body"] == proof["leaves"][0]["body"] and page["size"] == checkpoint.size
    consistency = example("getConsistencyProof")
    assert consistency["second"] == checkpoint.size
    assert len(consistency["path"]) == len(merkle.consistency_ranges(consistency["first"], consistency["second"]))


async def logged_as_stored(api: AsyncTestClient, store: MemoryStore, stream: str) -> list[dict]:
    """The stream's leaves in a signed checkpoint (waited for: its creation, end and seed), each proven in it and
    each the leaf its stored event writes; their records."""
    checkpoint = open_checkpoint(await checkpointed(api, stream, 3), Verifier.parse(LOG_KEY.verifier()))
    proof = (await api.get(f"/v1/log/proofs/inclusion/{stream}", params={"size": checkpoint.size})).json()
    expected = logged_leaves(await store.read_stream(stream))
    assert {item["version"]: item["body"].encode() for item in proof["leaves"]} == expected
    for item in proof["leaves"]:
        assert merkle.verify_inclusion(item["index"], checkpoint.size, merkle.leaf_hash(item["body"].encode()),
                                       [base64.b64decode(h) for h in item["path"]], checkpoint.root)
    return [msgspec.json.decode(item["body"]) for item in proof["leaves"]]


async def test_a_tournaments_creation_end_and_seed_are_logged_as_its_stored_events_write_them(memory_settings, games):
    """A competition as the service runs it (the cup of one round that test_tournament_service runs over HTTP to
    its end, run here) has exactly its creation, end and seed leaves in a signed checkpoint, each the leaf its
    stored event writes. Its log's stream (what the log names and proves) is `tournament-<tournament_id>`."""
    store = MemoryStore()
    app = create_app(msgspec.structs.replace(memory_settings, log_key=LOG_KEY.private_text()), games=games, store=store)
    async with AsyncTestClient(app, timeout=30) as api:
        await cups.test_a_cup_over_http_is_paired_recorded_and_finished_by_the_services_own_workers(api)
        [stream] = [s for s in store.streams if s.startswith("tournament-")]
        records = await logged_as_stored(api, store, stream)
    assert [(r["leaf"], r["type"]) for r in records] == [
        ("created", "tournament.TournamentCreated"), ("ended", "tournament.TournamentEnded"),
        ("seed", "tournament.SeedRevealed")]
    assert records[0]["kind"] == "tally" and records[0]["seats"] == 2 and len(records[0]["seed_commitment"]) == 64


async def test_an_arenas_creation_end_and_seed_are_logged_as_its_stored_events_write_them(memory_settings, games,
                                                                                          monkeypatch):
    """An arena as the service runs it: two players join, are paired by the arena's worker, the worker's clock
    passes the end, their game ends, and the arena finishes. Its stream `arena-<arena_id>` has exactly its
    creation, end and seed leaves in a signed checkpoint, each the leaf its stored event writes."""
    store = MemoryStore()
    app = create_app(msgspec.structs.replace(memory_settings, log_key=LOG_KEY.private_text()), games=games, store=store)
    async with AsyncTestClient(app, timeout=30) as api:
        org, *entrants = [await arenas.player(api, name) for name in ("Org", "Ann", "Ben")]
        resp = await api.post("/v1/arenas", headers=auth(org), json={"kind": "tally", "minutes": 1,
                                                                     "options": {"target": 12}})
        assert resp.status_code == 201, resp.text
        arena_id = resp.json()["arena_id"]
        for entrant in entrants:
            assert (await api.post(f"/v1/arenas/{arena_id}/join", headers=auth(entrant), json={})).status_code == 200

        def shown(holds: Any) -> Any:
            async def view() -> dict | None:
                found_view = await arenas.arena(api, arena_id)
                return found_view if holds(found_view) else None
            return view

        playing = await found(shown(lambda v: v["running"]))
        monkeypatch.setattr(arena_worker, "now_ms", lambda: playing["ends_at_ms"] + 1)
        await found(shown(lambda v: v["status"] != "open"))  # closed: its running game still counts
        for game_id in {s["playing"] for s in playing["standings"]} - {None}:
            await arenas.finish(api, game_id, {p["id"]: p for p in entrants})
        await found(shown(lambda v: v["status"] == "finished"))
        records = await logged_as_stored(api, store, f"arena-{arena_id}")
    assert [(r["leaf"], r["type"]) for r in records] == [
        ("created", "arena.ArenaCreated"), ("ended", "tournament.TournamentEnded"), ("seed", "tournament.SeedRevealed")]
    assert records[0]["kind"] == "tally" and len(records[0]["seed_commitment"]) == 64


class _Kept(logging.Handler):
    """The warnings the app's logging turns into lines (`service.ops.logging` captures them), kept."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@post("/bare", sync_to_thread=False)
def _bare(data: dict[str, str]) -> None:
    """A route with a bare `data`, which Litestar warns of."""


def test_every_route_declares_its_body_so_building_the_app_warns_of_no_bare_data(memory_settings, games):
    """Litestar 2 warns of a `data` without a body marker (it stops working in 3.0): every route taking its body
    through `StrictBody` (the cosignature route, the tournaments' and arenas') declares `JSONBody[...]`. A warning is
    caught whichever way it goes: to the recorder, or (once the app configured logging) to `py.warnings`."""
    kept, logger = _Kept(), logging.getLogger("py.warnings")
    level, logger.level = logger.level, logging.WARNING
    logger.addHandler(kept)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            create_app(memory_settings, games=games, store=MemoryStore())
            Litestar([_bare])  # the net's own check: a bare `data` it must catch
    finally:
        logger.removeHandler(kept)
        logger.setLevel(level)
    said = [str(w.message) for w in caught] + kept.lines
    assert any("body marker" in line and "handler='_bare'" in line for line in said)
    assert [line for line in said if "body marker" in line and "handler='_bare'" not in line] == []


async def test_a_cosignature_body_is_decoded_once_strictly_and_an_unknown_field_is_a_400_naming_it(client,
                                                                                                 monkeypatch):
    """The body goes through `StrictBody` (the edge's one strict decoder, unknown fields refused by name), not
    through Litestar's lenient conversion and then a second look."""
    decoded: list[type] = []

    def counted(value: bytes, type_: type, connection: Any) -> Any:
        decoded.append(type_)
        return decode_strictly(value, type_, connection)

    monkeypatch.setattr(schemas, "decode_strictly", counted)
    witness = Signer.generate("witness.example/w1", COSIGNATURE)
    resp = await client.post("/v1/log/cosignatures", json={"note": "x\n1\nroot\n", "witness_key": witness.verifier(),
                                                           "witnes_key": witness.verifier()})
    assert resp.status_code == 400 and resp.json()["code"] == "invalid_request", resp.text
    assert "witnes_key" in resp.json()["detail"]
    assert decoded == [Cosignature]
