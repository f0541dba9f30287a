"""`stela verify --log URL` and `stela witness URL`: a third party's checks of the transparency log over
its HTTP API (docs/audit.md), with nothing but the log's public key to trust.

`verify_in_log` proves that an export's creation, end and seed leaves are in a signed checkpoint;
`audit_log` reads every leaf up to a checkpoint, recomputes its root, and asks the service for each
logged game and competition: one whose leaves are logged but that the service no longer has, or whose
export (a competition's published events) writes other leaves, is reported. `witness_round` keeps the last checkpoint it saw in a state file, accepts a
new one only with a consistency proof from it (or the same root for the same size), cosigns it with
the witness's own key and submits the cosignature; anything else is a split view, refused
(`SplitView`), the state left as it was.
"""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

from domain.transparency import merkle
from service.commands.notes import COSIGNATURE, ED25519, NoteError, Signer, Verifier, cosigned_by, open_checkpoint, split
from service.commands.verify import check_inclusion, logged_leaves, parse_ndjson, published_events
from service.store.protocol import StoredEvent


COMPETITIONS = {"tournament": "/v1/tournaments", "arena": "/v1/arenas"}  # a competition's stream family -> its routes


class SplitView(Exception):
    """The log showed this witness a checkpoint that does not extend the last one it saw."""


async def log_key(client: Any, given: str | None) -> Verifier:
    """The log's verifier key: `given`, else the one the service publishes (trusted on first use)."""
    if given:
        return Verifier.parse(given)
    info = (await client.get("/v1/log/")).json()
    if not info.get("public_key"):
        raise NoteError("the service publishes no log key: pass --log-key")
    return Verifier.parse(info["public_key"])


async def signed_checkpoint(client: Any, key: Verifier, note: str | None = None) -> tuple[str, Any]:
    """The checkpoint note (`note`, else the newest the service serves) and what it states, signature checked."""
    if note is None:
        resp = await client.get("/v1/log/checkpoint")
        if resp.status_code != 200:
            raise NoteError(f"the service serves no checkpoint ({resp.status_code})")
        note = resp.text
    return note, open_checkpoint(note, key)


async def verify_in_log(client: Any, events: list[StoredEvent], key: Verifier, note: str | None = None) -> list[str]:
    """Problems proving the export's leaves against the checkpoint (the newest when `note` is None)."""
    if not events:
        return ["the export is empty"]
    _, checkpoint = await signed_checkpoint(client, key, note)
    resp = await client.get(f"/v1/log/proofs/inclusion/{events[0].stream_id}", params={"size": checkpoint.size})
    if resp.status_code == 404:
        return [f"the log of {checkpoint.size} leaves holds no leaf of {events[0].stream_id}"]
    resp.raise_for_status()
    return check_inclusion(events, resp.json(), checkpoint.size, checkpoint.root)


async def audit_log(client: Any, key: Verifier, note: str | None = None) -> tuple[int, list[str]]:
    """(leaves read, problems) for the whole log up to the checkpoint (the newest when `note` is None), against
    the service's games."""
    _, checkpoint = await signed_checkpoint(client, key, note)
    leaves: list[dict[str, Any]] = []
    while len(leaves) < checkpoint.size:
        page = (await client.get("/v1/log/leaves", params={"start": len(leaves), "limit": 1000})).json()
        leaves += page["leaves"][:checkpoint.size - len(leaves)]
        if not page["leaves"]:
            break
    hashes = [merkle.leaf_hash(item["body"].encode()) for item in leaves]
    problems = []
    if _root(hashes) != checkpoint.root or len(hashes) != checkpoint.size:
        problems.append("the leaves served do not hash to the checkpoint's root")
    streams: dict[str, dict[int, str]] = {}
    for item in leaves:
        record = json.loads(item["body"])
        streams.setdefault(record["stream_id"], {})[record["version"]] = item["body"]
    for stream_id, logged in streams.items():
        problems += await _stream_against_log(client, stream_id, logged)
    return len(leaves), problems


async def _stream_against_log(client: Any, stream_id: str, logged: dict[int, str]) -> list[str]:
    """A logged stream against the service: a game's (its export) or a competition's (`tournament-<id>`,
    `arena-<id>`: its published events, with their chain once it has ended)."""
    family, _, competition_id = stream_id.partition("-")
    competition = COMPETITIONS.get(family)
    url = f"{competition}/{competition_id}" if competition else f"/v1/games/{stream_id}"
    records = [json.loads(body) for body in logged.values()]
    if not any(r["leaf"] == "seed" for r in records):  # running: it must exist; its log is not public yet
        resp = await client.get(url)
        return [f"{stream_id}: logged, but the service has no such {family if competition else 'game'}"] \
            if resp.status_code == 404 else []
    resp = await client.get(f"{url}/events" if competition else f"{url}/export")
    if resp.status_code != 200:
        return [f"{stream_id}: logged as finished, but the service has no log of it ({resp.status_code})"]
    try:
        events = published_events(resp.json()["events"]) if competition else parse_ndjson(resp.content)
    except (ValueError, KeyError, TypeError) as exc:
        return [f"{stream_id}: its published log: {exc!r}"]
    exported = {v: body.decode() for v, body in logged_leaves(events).items()}
    if exported != logged:
        return [f"{stream_id}: its export writes other leaves than the log holds (v"
                + ", v".join(str(v) for v in sorted(set(exported.items()) ^ set(logged.items()))) + ")"]
    return []


def _root(hashes: list[bytes]) -> bytes:
    size = len(hashes)
    nodes: dict[merkle.Node, bytes] = merkle.grown(0, {}, hashes)
    return merkle.range_hash(0, size, nodes)


def witness_key(path: Path, name: str) -> Signer:
    """The witness's own cosigning key, generated into `path` on first use."""
    if not path.exists():
        path.write_text(Signer.generate(name, COSIGNATURE).private_text() + "\n")
        path.chmod(0o600)
    return Signer.parse(path.read_text())


async def witness_round(client: Any, signer: Signer, state_path: Path, given_key: str | None = None) -> dict[str, Any]:
    """Check the newest checkpoint against the last one seen, cosign and submit it; what was witnessed."""
    state = json.loads(state_path.read_text()) if state_path.exists() else {}
    key = Verifier.parse(state["log_key"]) if state.get("log_key") and not given_key else await log_key(client, given_key)
    note, checkpoint = await signed_checkpoint(client, key)
    if state.get("log_key") and Verifier.parse(state["log_key"]) != key:
        raise SplitView("the log's key is not the one this witness saw before")
    last_size, last_root = state.get("size", 0), base64.b64decode(state.get("root", ""))
    if checkpoint.size < last_size:
        raise SplitView(f"the log shrank from {last_size} to {checkpoint.size} leaves")
    if checkpoint.size == last_size and last_size and checkpoint.root != last_root:
        raise SplitView(f"two roots for a tree of {last_size} leaves")
    if last_size and checkpoint.size > last_size:
        resp = await client.get("/v1/log/proofs/consistency", params={"first": last_size, "second": checkpoint.size})
        path = [base64.b64decode(h) for h in resp.json().get("path", [])] if resp.status_code == 200 else []
        if not merkle.verify_consistency(last_size, checkpoint.size, last_root, checkpoint.root, path):
            raise SplitView(f"the tree of {checkpoint.size} leaves does not extend the tree of {last_size} "
                            f"this witness saw")
    text, _ = split(note)
    cosigned = note + signer.cosign(text, int(time.time()))
    resp = await client.post("/v1/log/cosignatures", json={"note": cosigned, "witness_key": signer.verifier()})
    state_path.write_text(json.dumps({"log_key": key.text(), "size": checkpoint.size, "root": base64.b64encode(checkpoint.root).decode(),
                      "note": note}))
    return {"size": checkpoint.size, "root": base64.b64encode(checkpoint.root).decode(),
            "submitted": resp.status_code == 200, "witness_key": signer.verifier()}


def cmd_witness(args: Any) -> int:
    """`stela witness URL`: witness the log once, or every `--every` seconds; 3 on a split view."""
    import asyncio

    import httpx

    signer = witness_key(Path(args.key), args.name)

    async def run() -> int:
        async with httpx.AsyncClient(base_url=args.url.rstrip("/"), timeout=30) as client:
            while True:
                try:
                    print(json.dumps(await witness_round(client, signer, Path(args.state), args.log_key)), flush=True)
                except SplitView as exc:
                    print(json.dumps({"split_view": str(exc)}), flush=True)
                    return 3
                if not args.every:
                    return 0
                await asyncio.sleep(args.every)

    return asyncio.run(run())


def witness_problems(note: str, witnesses: list[Verifier], quorum: int | None) -> list[str]:
    """Problems when the checkpoint note carries fewer than `quorum` (None: all of them) valid cosignatures by
    the `witnesses`' keys."""
    need = len(witnesses) if quorum is None else quorum
    if need > len(witnesses):
        return [f"{need} witnesses' cosignatures required, but only {len(witnesses)} witness keys given"]
    signed = [w.name for w in witnesses if cosigned_by(note, w) is not None]
    if len(signed) < need:
        return [f"the checkpoint carries {len(signed)} of the {need} witness cosignatures required"
                + (f" (cosigned by {', '.join(signed)})" if signed else "")]
    return []


def given_key(text: str, option: str, kind: int) -> Verifier:
    """A verifier key given as `option`, of type `kind` (the log's 0x01, a witness's 0x04); a NoteError saying
    which option otherwise."""
    try:
        key = Verifier.parse(text)
    except (ValueError, IndexError) as exc:
        raise NoteError(f"{option} {text!r}: {exc}") from exc
    if key.kind != kind:
        raise NoteError(f"{option} {text!r}: not a key of type {kind:#04x}")
    return key


def log_problems(args: Any, events: list[StoredEvent] | None) -> dict[str, Any]:
    """`stela verify --log URL`: the export's leaves proven in the log, or (no export) the whole log audited,
    against `--checkpoint` (else the newest), which must carry the `--witness` keys' cosignatures (`--witnesses`
    of them). A key or note that does not check, a checkpoint file that cannot be read, a log that does not
    answer or answers what does not parse: each is a problem like any other (exit 1, no traceback)."""
    import asyncio

    import httpx

    url = args.log.rstrip("/")
    result: dict[str, Any] = {} if events is not None else {"leaves": 0}
    try:
        log = given_key(args.log_key, "--log-key", ED25519).text() if args.log_key else None
        witnesses = list({w.text(): w for w in (given_key(t, "--witness", COSIGNATURE) for t in args.witness)}.values())
        note = Path(args.checkpoint).read_text() if args.checkpoint else None
    except NoteError as exc:
        return {**result, "problems": [str(exc)]}
    except (OSError, ValueError) as exc:  # unreadable, or not text
        return {**result, "problems": [f"--checkpoint {args.checkpoint}: {exc}"]}

    async def run() -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            key = await log_key(client, log)
            note_used, _ = await signed_checkpoint(client, key, note)
            problems = witness_problems(note_used, witnesses, args.witnesses)
            if events is None:
                read, audited = await audit_log(client, key, note_used)
                return {"leaves": read, "problems": problems + audited}
            return {"problems": problems + await verify_in_log(client, events, key, note_used)}

    try:
        return asyncio.run(run())
    except NoteError as exc:
        problem = str(exc)
    except httpx.HTTPStatusError as exc:
        problem = f"the log at {url} answered {exc.response.status_code} to {exc.request.url.path}"
    except httpx.HTTPError as exc:
        problem = f"the log at {url} did not answer: {exc!r}"
    except (ValueError, LookupError, TypeError) as exc:  # an answer that does not parse
        problem = f"the log at {url} answered what does not parse: {exc!r}"
    return {**result, "problems": [problem]}
