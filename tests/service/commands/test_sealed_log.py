"""The transparency log keeps a sealed duplicate deal sealed (issue 46 x issue 44): while one table of a
deal still plays, nothing the log serves a non-seat (leaves, proofs, checkpoints) tells that another
table has ended, nor at which version; once the last table ends, both tables' end and seed leaves are
integrated (after leaves that committed later) and proven, and the whole log audits clean."""

from __future__ import annotations

import base64
import json

from domain.transparency import merkle
from domain.transparency.leaves import leaf, role
from service.cli.transparency import audit_log, verify_in_log
from service.commands.notes import Verifier, open_checkpoint
from service.commands.verify import parse_ndjson
from tests.service.commands.test_sealed_deals import ADMIN, duplicate_deal, play_to_the_end, register
from tests.service.edge.test_log_routes import LOG_KEY, logged  # noqa: F401 - a service signing its log
from testkit.log import checkpointed


async def _everything_served(c, streams: list[str], first_size: int) -> tuple[str, list[dict]]:
    """Every answer the log gives a non-seat now (info, checkpoints, every leaf, the streams' inclusion
    proofs, consistency from `first_size`), serialised; and the leaves."""
    answers = [(await c.get("/v1/log/")).text, note := (await c.get("/v1/log/checkpoint")).text]
    size = open_checkpoint(note, Verifier.parse(LOG_KEY.verifier())).size
    leaves: list[dict] = []
    while (page := (await c.get("/v1/log/leaves", params={"start": len(leaves), "limit": 1000})).json())["leaves"]:
        answers.append(json.dumps(page))
        leaves += page["leaves"]
    for n in range(1, size + 1):
        answers.append(f"{n}: {(await c.get(f'/v1/log/checkpoints/{n}')).text}")
    answers += [(await c.get(f"/v1/log/proofs/inclusion/{s}")).text for s in streams]
    answers.append((await c.get("/v1/log/proofs/consistency", params={"first": first_size, "second": size})).text)
    return "\n".join(answers), leaves


async def test_the_log_serves_nothing_of_a_sealed_tables_end_until_its_deal_opens(logged):
    c = logged
    _, tid, _, (first, second), seats = await duplicate_deal(c)
    game_a, game_b = first["game_id"], second["game_id"]
    early = open_checkpoint(await checkpointed(c, game_b, 1), Verifier.parse(LOG_KEY.verifier())).size

    await play_to_the_end(c, game_a, seats[game_a])
    export = await c.get(f"/v1/games/{game_a}/export", headers=ADMIN)
    assert export.status_code == 200, export.text
    sealed = {role(e.type): (e.hash, leaf(game_a, e.version, e.type, e.data, e.hash))
              for e in parse_ndjson(export.content) if role(e.type) in ("ended", "seed")}
    assert set(sealed) == {"ended", "seed"}
    # a game created after table A ended: once its creation is proven, everything committed before is read
    plain = await register(c, "Lobby")
    later = (await c.post("/v1/games", headers=plain["headers"], json={"kind": "tally", "seats": 2})).json()["id"]
    await checkpointed(c, later, 1)

    served, leaves = await _everything_served(c, [game_a, game_b, tid, later], early)
    for which, (chain_hash, body) in sealed.items():
        for secret in (json.dumps(body.decode())[1:-1], base64.b64encode(merkle.leaf_hash(body)).decode(), chain_hash):
            assert secret not in served, f"the log serves table A's {which} leaf ({secret[:40]}) while its deal is sealed"
    assert [json.loads(x["body"])["leaf"] for x in leaves if x["stream_id"] == game_a] == ["created"]
    assert [json.loads(x["body"])["leaf"] for x in leaves if x["stream_id"] == game_b] == ["created"]

    await play_to_the_end(c, game_b, seats[game_b])
    await checkpointed(c, game_a, 3)
    note = await checkpointed(c, game_b, 3)
    checkpoint = open_checkpoint(note, Verifier.parse(LOG_KEY.verifier()))
    indexes, bodies = {}, {}
    for game in (game_a, game_b):
        proof = (await c.get(f"/v1/log/proofs/inclusion/{game}", params={"size": checkpoint.size})).json()
        for item in proof["leaves"]:
            assert merkle.verify_inclusion(item["index"], checkpoint.size, base64.b64decode(item["leaf_hash"]),
                                           [base64.b64decode(h) for h in item["path"]], checkpoint.root)
        indexes[game] = {json.loads(item["body"])["leaf"]: item["index"] for item in proof["leaves"]}
        bodies[game] = [item["body"].encode() for item in proof["leaves"]]
        export = (await c.get(f"/v1/games/{game}/export")).content
        assert await verify_in_log(c, parse_ndjson(export), Verifier.parse(LOG_KEY.verifier()), note) == []
    assert all(body in bodies[game_a] for _, body in sealed.values())
    later_at = next(x["index"] for x in (await c.get("/v1/log/leaves", params={"limit": 1000})).json()["leaves"]
                    if x["stream_id"] == later)
    assert indexes[game_a]["ended"] > later_at  # held past the leaves that committed after it
    size, problems = await audit_log(c, Verifier.parse(LOG_KEY.verifier()))
    # the audit of the whole log (other tests of this database log streams that are no service's games)
    assert size >= checkpoint.size and not [p for p in problems if p.startswith((game_a, game_b, tid, later, "the"))]
