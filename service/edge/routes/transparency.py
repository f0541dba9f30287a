"""The transparency log (docs/audit.md): its key and size, signed checkpoints with witnesses'
cosignatures, the leaves paged, inclusion and consistency proofs, and cosignatures submitted.

The OpenAPI examples are one small log, computed here as the service computes its own: 42 leaves of 14
example games, its checkpoint of 42 leaves signed by a fixed example key (seed bytes 0..31, not a
secret), so every example proof verifies against the example checkpoint with the example public key."""

from __future__ import annotations

import hashlib
from typing import Annotated, Any

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from litestar import Controller, Response, get, post
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import JSONBody, PathParameter, QueryParameter

from domain.transparency import merkle
from domain.transparency.leaves import leaf
from service.commands.notes import Signer, checkpoint_text
from service.commands.transparency import (PAGE, ConsistencyProof, Included, InclusionProof, LeafPage, LogInfo,
                                           Transparency, as_leaf, b64)
from service.edge.errors import responses
from service.edge.schemas import NO_NUL, StrictBody
from service.store.ledger import Entry

NOTE = "text/plain; charset=utf-8"
MOST = (1 << 53) - 1  # tree sizes and indexes: exact in any JSON number, and in PostgreSQL's bigint


def _example_log() -> dict[str, Any]:
    """The examples: the log of 14 example games of tally (creation, end, seed), signed at 40 and 42 leaves."""
    signer = Signer("play.example.org/stela", Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
    entries: list[Entry] = []
    for g in range(14):
        stream = f"g-{g + 0x3f2a:04x}"
        chain = hashlib.sha256(stream.encode()).hexdigest()
        for version, type_, data in ((1, "table.GameCreated", {"kind": "tally", "options": {}, "seats": 2,
                                                                "seed_commitment": hashlib.sha256(chain.encode()).hexdigest()}),
                                     (9, "table.GameEnded", {"outcome": {"scores": [3, 1], "ranks": [1, 2], "winners": [0]}}),
                                     (10, "table.SeedRevealed", {"seed": chain})):
            chain = hashlib.sha256(f"{chain}{version}".encode()).hexdigest()
            body = leaf(stream, version, type_, data, chain)
            assert body is not None
            entries.append(Entry(index=len(entries), stream_id=stream, version=version, body=body,
                                 hash=merkle.leaf_hash(body)))
    nodes = merkle.grown(0, {}, [e.hash for e in entries])

    def hashes(ranges: list[merkle.Range]) -> list[str]:
        return [b64(merkle.range_hash(lo, hi, nodes)) for lo, hi in ranges]

    size, root = len(entries), merkle.range_hash(0, len(entries), nodes)
    text = checkpoint_text(signer.name, size, root)
    game = entries[0].stream_id
    return {
        "note": f"{text}\n{signer.sign(text)}",
        "info": LogInfo(origin=signer.name, public_key=signer.verifier(), size=size, checkpoint="/v1/log/checkpoint"),
        "page": LeafPage(size=size, leaves=[as_leaf(e) for e in entries[:2]], next=2),
        "inclusion": InclusionProof(stream_id=game, size=size, root=b64(root), leaves=[
            Included(index=e.index, version=e.version, body=e.body.decode(), leaf_hash=b64(e.hash),
                     path=hashes(merkle.inclusion_ranges(e.index, size))) for e in entries if e.stream_id == game]),
        "consistency": ConsistencyProof(first=40, second=size, path=hashes(merkle.consistency_ranges(40, size))),
    }


EXAMPLE = _example_log()
NOTE_EXAMPLE = EXAMPLE["note"]
# the cosignature body's example, as first written (the TypeScript SDK's generated types carry it)
BODY_NOTE_EXAMPLE = ("play.example.org/stela\n42\nqJbXU3lnt3VJTf0sJJvSTUE9x9uD1e4l1bDkP4hMBNQ=\n\n"
                     "\u2014 play.example.org/stela Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo"
                     "+zyWE+xeMcTOAYQ8=\n")
Size = Annotated[int, PathParameter(ge=1, le=MOST, description="a tree size a checkpoint was published for",
                                    examples=[Example(value=42)])]


def _json_doc(name: str, summary: str, *errors: int) -> dict[int, ResponseSpec]:
    """A JSON answer's documentation with the example log's `name` as its example (the description Litestar
    gives by default, which the TypeScript SDK's generated types carry)."""
    value = EXAMPLE[name]
    return {200: ResponseSpec(data_container=type(value), generate_examples=False,
                              description="Request fulfilled, document follows",
                              examples=[Example(summary=summary, value=msgspec.to_builtins(value))]),
            **responses(*errors)}


def _note(body: str) -> Response[str]:
    return Response(body, media_type=NOTE)


def _note_doc(description: str, *errors: int) -> dict[int, ResponseSpec]:
    return {200: ResponseSpec(data_container=str, media_type=NOTE, generate_examples=False, description=description,
                              examples=[Example(summary="a checkpoint of 42 leaves", value=NOTE_EXAMPLE)]),
            **responses(*errors)}


class Cosignature(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    note: Annotated[str, msgspec.Meta(max_length=8192, description="the checkpoint with the witness's cosignature line",
                                      examples=[BODY_NOTE_EXAMPLE])]
    witness_key: Annotated[str, msgspec.Meta(max_length=512, description="the witness's verifier key (type 0x04)",
                                             examples=["witness.example/w1+8a2c40d3+BEXcDqlxtaGS/Wz1s3ax4ZHpEh3jCnR0dumD"
                                                       "JkfLa/Gd"])]


class LogController(Controller):
    path = "/v1/log"
    tags = ["log"]

    @get("/", operation_id="getLogInfo", summary="The transparency log's origin, public key and size",
         description="The verifier key signs every checkpoint (C2SP signed-note, Ed25519, type 0x01); `size` is the "
                     "number of leaves integrated so far (a checkpoint may lag it by the worker's interval).",
         responses=_json_doc("info", "a log of 42 leaves"))
    async def info(self, transparency: NamedDependency[Transparency]) -> LogInfo:
        return await transparency.info()

    @get("/checkpoint", operation_id="getCheckpoint", summary="The newest signed checkpoint",
         description="A C2SP tlog-checkpoint: origin, tree size and RFC 9162 root hash (base64), then the log's "
                     "signature line and every witness cosignature kept for it (C2SP tlog-cosignature).",
         responses=_note_doc("the signed note", 404))
    async def checkpoint(self, transparency: NamedDependency[Transparency]) -> Response[str]:
        return _note(await transparency.note())

    @get("/checkpoints/{size:int}", operation_id="getCheckpointOfSize", summary="The checkpoint of one tree size",
         responses=_note_doc("the signed note", 400, 404))
    async def checkpoint_of(self, transparency: NamedDependency[Transparency], size: Size) -> Response[str]:
        return _note(await transparency.note(size))

    @post("/checkpoints", operation_id="issueCheckpoint", summary="Sign a checkpoint of the log now",
          description="Integrates the committed leaves and signs a checkpoint if the tree grew (what the worker does "
                      "every STELA_LOG_CHECKPOINT_SECONDS); answers the newest checkpoint.",
          status_code=200, responses=_note_doc("the newest signed note", 404))
    async def issue(self, transparency: NamedDependency[Transparency]) -> Response[str]:
        await transparency.issue()
        return _note(await transparency.note())

    @post("/cosignatures", dto=StrictBody[Cosignature], return_dto=None, operation_id="addCosignature",
          summary="Submit a witness's cosignature of a checkpoint",
          description="The note must be a checkpoint this log published, carrying a valid cosignature by "
                      "`witness_key`; the cosignature line is kept (the first per witness and size) and served with "
                      "the checkpoint from then on.", status_code=200, responses=_note_doc("the note, cosigned", 400, 404, 422))
    async def cosign(self, transparency: NamedDependency[Transparency], data: JSONBody[Cosignature]) -> Response[str]:
        return _note(await transparency.cosign(data.note, data.witness_key))

    @get("/leaves", operation_id="listLogLeaves", summary="The log's leaves, in index order, paged",
         description="Each leaf is the canonical JSON of a creation, an end or a revealed seed (docs/audit.md), with "
                     "its RFC 9162 leaf hash; `next` is the start of the following page.",
         responses=_json_doc("page", "the first two leaves of 42", 400))
    async def leaves(self, transparency: NamedDependency[Transparency],
                     start: Annotated[int, QueryParameter(ge=0, le=MOST, examples=[Example(value=0)])] = 0,
                     limit: Annotated[int, QueryParameter(ge=1, le=PAGE, examples=[Example(value=100)])] = 100) -> LeafPage:
        return await transparency.leaves(start, limit)

    @get("/proofs/inclusion/{stream_id:str}", operation_id="getInclusionProof",
         summary="Inclusion proofs of a game's or competition's leaves",
         description="For each leaf of the stream, its RFC 9162 inclusion path in the tree of `size` (a published "
                     "checkpoint's; the newest when omitted). 404 when no checkpoint includes a leaf of it.",
         responses=_json_doc("inclusion", "a game's creation, end and seed in the checkpoint of 42 leaves", 400, 404))
    async def inclusion(self, transparency: NamedDependency[Transparency],
                        stream_id: Annotated[str, PathParameter(max_length=128, pattern=NO_NUL,
                                                                examples=[Example(value="g-3f2a")])],
                        size: Annotated[int | None, QueryParameter(ge=1, le=MOST, examples=[Example(value=42)])] = None
                        ) -> InclusionProof:
        return await transparency.inclusion(stream_id, size)

    @get("/proofs/consistency", operation_id="getConsistencyProof",
         summary="A consistency proof between two published tree sizes",
         description="The RFC 9162 PROOF(first, D[second]) hashes that show the tree of `first` is a prefix of the "
                     "tree of `second` (404 when either size has no checkpoint, or `first` is the larger).",
         responses=_json_doc("consistency", "from 40 leaves to 42", 400, 404))
    async def consistency(self, transparency: NamedDependency[Transparency],
                          first: Annotated[int, QueryParameter(ge=1, le=MOST, examples=[Example(value=40)])],
                          second: Annotated[int, QueryParameter(ge=1, le=MOST, examples=[Example(value=42)])]) -> ConsistencyProof:
        return await transparency.consistency(first, second)
