"""The transparency log as the service offers it: checkpoints signed by the log's key, the leaves paged,
inclusion proofs for a stream's leaves against any published checkpoint, consistency proofs between two
sizes, and the witnesses' cosignatures (docs/audit.md).

`issue` integrates the committed leaves and, when the tree has grown (or none was signed yet), signs
and keeps a checkpoint of the new size; the checkpoint worker calls it at a fixed interval and
`POST /v1/log/checkpoints` on demand. The end and seed leaves of a game whose duplicate deal is sealed
(`Seals`, the one sealing rule) are held out of the tree until the deal opens: until then no leaf,
proof or checkpoint tells that the game has ended, nor at which version. A proof is only given against a size a checkpoint was published
for, so a client checks it with a signed root. Without a signing key (`STELA_LOG_KEY` unset outside
the embedded `make run`), leaves are still written and served, but no checkpoint is signed.
"""

from __future__ import annotations

import base64
import os
import time
from pathlib import Path

import msgspec

from domain.transparency import merkle
from service.commands.exceptions import InvalidRequest, NotFound, ServiceError
from service.commands.notes import NoteError, Signer, Verifier, checkpoint_text, cosigned_by, split
from service.commands.sealing import Seals
from service.store.ledger import Checkpoint, Entry, Ledger, proof, root

PAGE = 1000  # leaves per page, at most
_SEALABLE = ("ended", "seed")  # the leaves a sealed deal holds back


class BadCosignature(ServiceError):
    """A submitted cosignature that is not a valid cosignature, by the key given, of a published checkpoint."""


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


class Leaf(msgspec.Struct, frozen=True, kw_only=True):
    index: int
    stream_id: str
    version: int
    body: str  # the leaf's bytes (canonical JSON, domain.transparency.leaves), hashed as UTF-8
    leaf_hash: str  # base64 of SHA-256(0x00 || body)


class LeafPage(msgspec.Struct, frozen=True, kw_only=True):
    size: int  # the integrated tree's size now
    leaves: list[Leaf]
    next: int | None  # the start of the next page (None: the last)


class Included(msgspec.Struct, frozen=True, kw_only=True):
    index: int
    version: int
    body: str
    leaf_hash: str
    path: list[str]  # base64 hashes, RFC 9162 PATH order (leaf side first)


class InclusionProof(msgspec.Struct, frozen=True, kw_only=True):
    stream_id: str
    size: int
    root: str
    leaves: list[Included]


class ConsistencyProof(msgspec.Struct, frozen=True, kw_only=True):
    first: int
    second: int
    path: list[str]


class LogInfo(msgspec.Struct, frozen=True, kw_only=True):
    origin: str
    public_key: str | None  # the verifier key of checkpoints (C2SP signed-note vkey); None: none signed here
    size: int
    checkpoint: str  # where the newest checkpoint is served


def as_leaf(e: Entry) -> Leaf:
    return Leaf(index=e.index, stream_id=e.stream_id, version=e.version, body=e.body.decode(), leaf_hash=b64(e.hash))


class Transparency:
    """The log of one store, signed by `signer` (None: not signed here) under `origin`; `seals` says
    which games' ends and seeds wait (none by default)."""

    def __init__(self, ledger: Ledger, signer: Signer | None, origin: str, seals: Seals | None = None) -> None:
        self.ledger, self.signer, self.origin = ledger, signer, origin
        self.seals = seals or Seals()

    async def issue(self) -> Checkpoint | None:
        """Integrate what committed (but what a sealed deal holds) and sign a checkpoint if the tree grew;
        the newest checkpoint."""
        size = await self.ledger.integrate(held=self._held)
        last = await self.ledger.checkpoint()
        if self.signer is None or (last is not None and last.size >= size):
            return last
        head = await root(self.ledger, size)
        text = checkpoint_text(self.origin, size, head)
        return await self.ledger.add_checkpoint(size, head, f"{text}\n{self.signer.sign(text)}")

    async def _held(self, stream_id: str, body: bytes) -> bool:
        """Is this pending leaf the end or the seed of a game whose duplicate deal is still sealed?"""
        return msgspec.json.decode(body)["leaf"] in _SEALABLE and await self.seals.sealed(stream_id)

    async def info(self) -> LogInfo:
        return LogInfo(origin=self.origin, public_key=self.signer.verifier() if self.signer else None,
                       size=await self.ledger.size(), checkpoint="/v1/log/checkpoint")

    async def note(self, size: int | None = None) -> str:
        """The checkpoint of `size` (None: the newest) as a signed note, witnesses' cosignatures appended."""
        found = await self._published(size)
        return found.note + "".join(await self.ledger.cosignatures(found.size))

    async def leaves(self, start: int, limit: int) -> LeafPage:
        if start < 0 or not 0 < limit <= PAGE:
            raise InvalidRequest(f"start is 0 or more and limit 1 to {PAGE}")
        entries = await self.ledger.entries(start, limit)
        size = await self.ledger.size()
        after = start + len(entries)
        return LeafPage(size=size, leaves=[as_leaf(e) for e in entries], next=after if after < size else None)

    async def inclusion(self, stream_id: str, size: int | None) -> InclusionProof:
        """Proofs that each of the stream's leaves is in the published tree of `size` (None: the newest)."""
        found = await self._published(size)
        entries = [e for e in await self.ledger.entries_of(stream_id) if e.index < found.size]
        if not entries:
            raise NotFound(f"no leaf of {stream_id} in the tree of {found.size}")
        out = [Included(index=e.index, version=e.version, body=e.body.decode(), leaf_hash=b64(e.hash),
                        path=[b64(h) for h in await proof(self.ledger, merkle.inclusion_ranges(e.index, found.size))])
               for e in entries]
        return InclusionProof(stream_id=stream_id, size=found.size, root=b64(found.root), leaves=out)

    async def consistency(self, first: int, second: int) -> ConsistencyProof:
        """The proof that the published tree of `first` is a prefix of the published tree of `second`."""
        if first > second:
            raise NotFound(f"no consistency proof runs from {first} down to {second} leaves")
        await self._published(first)
        await self._published(second)
        path = await proof(self.ledger, merkle.consistency_ranges(first, second))
        return ConsistencyProof(first=first, second=second, path=[b64(h) for h in path])

    async def cosign(self, note: str, witness_key: str) -> str:
        """Keep a witness's cosignature of a published checkpoint; the note with every cosignature."""
        try:
            witness = Verifier.parse(witness_key)
            text, _ = split(note)
            size = int(text.split("\n")[1])
        except (NoteError, ValueError, IndexError) as exc:
            raise BadCosignature(f"not a cosigned checkpoint and a witness key: {exc}") from exc
        found = await self._published(size)
        if split(found.note)[0] != text:
            raise BadCosignature("the cosigned text is not the checkpoint this log published for that size")
        stamp = cosigned_by(note, witness)
        if stamp is None or stamp > time.time() + 300:
            raise BadCosignature("no valid cosignature of that witness key on the note")
        line = next(line for line in note.split("\n") if line.startswith(f"\u2014 {witness.name} ")
                    and base64.b64decode(line.rsplit(" ", 1)[1])[:4] == witness.id)
        await self.ledger.add_cosignature(size, witness_key.strip(), line + "\n")
        return await self.note(size)

    async def _published(self, size: int | None) -> Checkpoint:
        found = await self.ledger.checkpoint(size)
        if found is None:
            raise NotFound("no checkpoint has been published" if size is None else f"no checkpoint of size {size}")
        return found


def log_signer(key: str | None, data_dir: str | None, name: str, ephemeral: bool = False) -> Signer | None:
    """The log's signing key: `key` (STELA_LOG_KEY, a "PRIVATE+KEY+..." text) when given; else, for the
    embedded PostgreSQL of `make run` (`data_dir` given), a development key named `name`, generated once
    into `data_dir/log-signing.key`; else a key of this process only when `ephemeral` (the in-memory
    store's, whose log dies with it); else None (deployments sign only with a configured key)."""
    if key:
        return Signer.parse(key)
    if ephemeral:
        return Signer.generate(name)
    if data_dir is None:
        return None
    path = Path(data_dir) / "log-signing.key"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(Signer.generate(name).private_text() + "\n")
    return Signer.parse(path.read_text())
