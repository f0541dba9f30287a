"""`stela verify ... --log URL` run as the command a third party runs (the CLI's own entry, `main`), against a
service on a real port: a game's export proven against the newest checkpoint or an older one it was given
(`--checkpoint`), a forged or foreign checkpoint, a wrong log key or a dead log URL reported as a problem
with exit 1 (not a traceback), and the witnesses' cosignatures a client requires (`--witness`, `--witnesses`)
against a split view (docs/audit.md). The games are real kinds (the CLI's registry has no test game): a
Cóatl table whose second seat resigns at once, which writes its creation, end and seed leaves."""

from __future__ import annotations

import asyncio
import base64
import json
import struct
from pathlib import Path
from typing import Any

import httpx
import msgspec

from service.cli.main import main
from service.commands.notes import COSIGNATURE, DASH, Signer, Verifier
from service.edge.app import create_app
from service.store.memory import MemoryStore
from testkit.api import started_game
from testkit.live import free_port, serving
from testkit.log import checkpointed
from tests.service.cli.test_log_tampering import finished_cup

LOG_KEY = Signer.generate("test.example/stela")
KEY = Verifier.parse(LOG_KEY.verifier()).text()


def served(memory_settings: Any, games: Any, store: MemoryStore | None = None) -> Any:
    """A service signing with LOG_KEY on `store` (a fresh memory store), on a free port (a context giving its
    URL)."""
    settings = msgspec.structs.replace(memory_settings, log_key=LOG_KEY.private_text())
    return serving(create_app(settings, games=games, store=store or MemoryStore()))


async def resign(client: httpx.AsyncClient, game_id: str, players: list[dict[str, Any]]) -> None:
    resp = await client.post(f"/v1/games/{game_id}/commands", headers=players[1]["headers"],
                             json={"command": {"type": "table.Resign"}})
    assert resp.status_code == 200, resp.text


async def finished(client: httpx.AsyncClient) -> str:
    """A Cóatl game ended by a resignation, its three leaves in a signed checkpoint."""
    game_id, players = await started_game(client, "coatl", 2)
    await resign(client, game_id, players)
    await checkpointed(client, game_id, 3)
    return game_id


async def exported(client: httpx.AsyncClient, game_id: str, folder: Path) -> Path:
    resp = await client.get(f"/v1/games/{game_id}/export")
    assert resp.status_code == 200, resp.text
    path = folder / f"{game_id}.ndjson"
    path.write_bytes(resp.content)
    return path


def verify(capsys: Any, *argv: str) -> tuple[int, dict[str, Any]]:
    """`stela verify *argv`: its exit code and the JSON line it printed last."""
    capsys.readouterr()
    code = main(["verify", *argv])
    return code, json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def versions(path: Path, *types: str) -> list[int]:
    return [e["version"] for e in map(json.loads, path.read_text().splitlines()) if e["type"] in types]


def test_a_game_verifies_against_an_older_checkpoint_and_one_finished_after_it_is_not_included(
        memory_settings, games, tmp_path, capsys):
    """`--checkpoint FILE`: the old game's leaves are proven in the older tree; a game created before it and
    ended after it has its end and seed named as missing; one created after it has no leaf there at all. Against
    the newest checkpoint (no `--checkpoint`) all three verify."""
    async def play(url: str) -> tuple[list[Path], str]:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            old_game = await finished(client)
            later, players = await started_game(client, "coatl", 2)
            old = await checkpointed(client, later, 1)  # holds the old game's leaves and the later one's creation
            await resign(client, later, players)
            new_game = await finished(client)
            await checkpointed(client, later, 3)
            return [await exported(client, g, tmp_path) for g in (old_game, later, new_game)], old

    with served(memory_settings, games) as url:
        (old_game, later, new_game), old = asyncio.run(play(url))
        (tmp_path / "old.note").write_text(old)
        log = ["--log", url, "--log-key", KEY]
        older = [*log, "--checkpoint", str(tmp_path / "old.note")]
        assert verify(capsys, str(old_game), *older)[0] == 0
        code, report = verify(capsys, str(later), *older)
        assert (code, report["ok"]) == (1, False)
        assert [p.split(":")[0] for p in report["problems"]] == [
            f"v{v}" for v in versions(later, "table.GameEnded", "table.SeedRevealed")], report
        assert all("the log holds no such leaf for this export" in p for p in report["problems"])
        code, report = verify(capsys, str(new_game), *older)
        assert (code, report["problems"]) == (1, [f"the log of {old.split()[1]} leaves holds no leaf of "
                                                  f"{new_game.stem}"])
        for path in (old_game, later, new_game):
            code, report = verify(capsys, str(path), *log)
            assert (code, report["ok"], report["problems"]) == (0, True, []), report


def foreign(note: str) -> str:
    """The note's text signed by a key of the log's own name that is not the log's key."""
    text = note.split("\n\n")[0] + "\n"
    return f"{text}\n{Signer.generate(LOG_KEY.name).sign(text)}"


def test_a_forged_or_foreign_checkpoint_a_wrong_log_key_and_a_dead_log_end_in_a_problem(
        memory_settings, games, tmp_path, capsys):
    """Each way the log's trust anchor can fail (the checkpoint given, the key given, the log itself) is one
    problem line and exit 1, in the export's report and in the whole-log audit alike."""
    async def play(url: str) -> tuple[Path, str]:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            game_id = await finished(client)
            return await exported(client, game_id, tmp_path), (await client.get("/v1/log/checkpoint")).text

    unsigned = "the checkpoint is not signed by the log's key"
    with served(memory_settings, games) as url:
        export, note = asyncio.run(play(url))
        size = note.split("\n")[1]
        files = {"foreign.note": (foreign(note), unsigned),
                 "forged.note": (note.replace(f"\n{size}\n", f"\n{int(size) + 1}\n", 1), unsigned),
                 "text.note": ("not a signed note\n", "a signed note is its text, an empty line and signature lines")}
        for name, (text, problem) in files.items():
            (tmp_path / name).write_text(text)
            code, report = verify(capsys, str(export), "--log", url, "--log-key", KEY, "--checkpoint", str(tmp_path / name))
            assert (code, report["ok"], report["problems"]) == (1, False, [problem]), name
        code, report = verify(capsys, str(export), "--log", url, "--log-key", KEY, "--checkpoint", str(tmp_path / "none"))
        assert code == 1 and report["problems"][0].startswith(f"--checkpoint {tmp_path / 'none'}: [Errno 2]"), report
        other = Signer.generate("test.example/stela")  # the log's name, another key
        witness = Signer.generate("witness.example/w1", COSIGNATURE)
        keys = {other.verifier(): unsigned, "nonsense": "--log-key 'nonsense': ",
                witness.verifier(): f"--log-key {witness.verifier()!r}: not a key of type 0x01"}
        for key, problem in keys.items():
            code, report = verify(capsys, str(export), "--log", url, "--log-key", key)
            assert code == 1 and len(report["problems"]) == 1 and report["problems"][0].startswith(problem), report
            assert verify(capsys, "--log", url, "--log-key", key)[0] == 1  # the whole-log audit alike
        assert verify(capsys, "--log", url, "--log-key", other.verifier()) == (1, {"leaves": 0, "problems": [unsigned]})
    dead = f"http://127.0.0.1:{free_port()}"
    code, report = verify(capsys, str(export), "--log", dead, "--log-key", KEY)
    assert code == 1 and report["problems"][0].startswith(f"the log at {dead} did not answer: ConnectError"), report
    code, audit = verify(capsys, "--log", dead)
    assert code == 1 and audit["problems"][0].startswith(f"the log at {dead} did not answer"), audit


def retimed(note: str, witness: str) -> str:
    """The note with the witness's cosignature moved one second on: its Ed25519 signature no longer matches."""
    lines = note.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{DASH} {witness} "))
    prefix, sig = lines[at].rsplit(" ", 1)
    raw = base64.b64decode(sig)
    stamp = struct.unpack(">Q", raw[4:12])[0] + 1
    lines[at] = f"{prefix} {base64.b64encode(raw[:4] + struct.pack('>Q', stamp) + raw[12:]).decode()}"
    return "\n".join(lines)


def test_stela_verify_requires_the_cosignatures_of_the_witnesses_it_is_given(memory_settings, games, tmp_path,
                                                                           capsys):
    """A witness cosigns the checkpoint through `stela witness`; `--witness` with its key (the `witness_key` its
    round prints) accepts the checkpoint served with that cosignature, or saved with it. A second witness that
    never cosigned fails the default (all keys given) and `--witnesses 2`, not `--witnesses 1`; a checkpoint
    without the cosignature, or with a forged one, fails."""
    async def play(url: str) -> tuple[Path, str]:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            game_id = await finished(client)
            return await exported(client, game_id, tmp_path), (await client.get("/v1/log/checkpoint")).text

    with served(memory_settings, games) as url:
        export, bare = asyncio.run(play(url))
        capsys.readouterr()
        assert main(["witness", url, "--key", str(tmp_path / "w1.key"), "--name", "witness.example/w1",
                     "--state", str(tmp_path / "w1.json"), "--log-key", KEY]) == 0
        w1 = json.loads(capsys.readouterr().out)["witness_key"]
        w2 = Signer.generate("witness.example/w2", COSIGNATURE).verifier()
        cosigned = httpx.get(f"{url}/v1/log/checkpoint").text
        notes = {"bare.note": bare, "cosigned.note": cosigned, "forged.note": retimed(cosigned, "witness.example/w1")}
        for name, text in notes.items():
            (tmp_path / name).write_text(text)

        def code(*options: str, note: str | None = None, game: bool = True) -> tuple[int, list[str]]:
            argv = [*([str(export)] if game else []), "--log", url, "--log-key", KEY, *options]
            result = verify(capsys, *argv, *(["--checkpoint", str(tmp_path / note)] if note else []))
            return result[0], result[1]["problems"]

        assert code("--witness", w1) == (0, [])
        assert code("--witness", w1, note="cosigned.note") == (0, [])
        assert code("--witness", w1, game=False) == (0, [])
        assert code("--witness", w1, "--witness", w2, "--witnesses", "1") == (0, [])
        short = ["the checkpoint carries 1 of the 2 witness cosignatures required (cosigned by witness.example/w1)"]
        assert code("--witness", w1, "--witness", w2) == (1, short)
        assert code("--witness", w1, "--witness", w2, "--witnesses", "2") == (1, short)
        assert code("--witness", w1, "--witness", w2, game=False) == (1, short)
        assert code("--witness", w1, "--witnesses", "2") == (
            1, ["2 witnesses' cosignatures required, but only 1 witness keys given"])
        none = ["the checkpoint carries 0 of the 1 witness cosignatures required"]
        assert code("--witness", w1, note="bare.note") == (1, none)
        assert code("--witness", w1, note="forged.note") == (1, none)
        assert code("--witness", w1, note="forged.note", game=False) == (1, none)
        assert code("--witness", KEY) == (1, [f"--witness {KEY!r}: not a key of type 0x04"])


def test_a_tournaments_report_is_held_to_the_same_key_checkpoint_and_witnesses(memory_settings, games, tmp_path,
                                                                             capsys):
    """`stela verify report.json --log URL` (test_log_tampering's cup, run to its end) goes through the same
    checks: a foreign log key, an unreadable checkpoint and a witness that never cosigned are problems, exit 1."""
    store = MemoryStore()
    path = tmp_path / "report.json"
    (tmp_path / "text.note").write_text("not a signed note\n")
    with served(memory_settings, games, store) as url:
        path.write_text(json.dumps(asyncio.run(finished_cup(url, store.streams))))
        log = [str(path), "--log", url, "--log-key", KEY]
        assert verify(capsys, *log) == (0, {"ok": True, "problems": []})
        witness = Signer.generate("witness.example/w1", COSIGNATURE).verifier()
        failing = {("--log-key", Signer.generate(LOG_KEY.name).verifier()): "the checkpoint is not signed by the log's key",
                   ("--checkpoint", str(tmp_path / "text.note")): "a signed note is its text, an empty line and "
                                                                  "signature lines",
                   ("--witness", witness): "the checkpoint carries 0 of the 1 witness cosignatures required"}
        for options, problem in failing.items():
            assert verify(capsys, *log, *options) == (1, {"ok": False, "problems": [problem]}), options
