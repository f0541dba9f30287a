"""C2SP signed notes, checkpoints and cosignatures: the known-answer example of Go's sumdb/note package
(golang.org/x/mod/sumdb/note, the format's reference implementation), key ids as the spec derives them,
and cosignatures (type 0x04) that verify only for their own text, time and key."""

from __future__ import annotations

import hashlib

import pytest

from service.commands.notes import (
    COSIGNATURE, NoteError, Signer, Verifier, checkpoint_text, cosigned_by, open_checkpoint, split,
)

GO_SIGNER = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_VERIFIER = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
GO_LINE = ("\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyB"
           "wJnAM=\n")


def test_the_reference_example_signs_and_verifies_byte_for_byte() -> None:
    signer = Signer.parse(GO_SIGNER)
    assert signer.verifier() == GO_VERIFIER and signer.private_text() == GO_SIGNER
    assert signer.sign(GO_TEXT) == GO_LINE
    assert signer.id == hashlib.sha256(b"PeterNeumann\n\x01" + signer.public).digest()[:4]
    text, [(name, raw)] = split(GO_TEXT + "\n" + GO_LINE)
    assert (text, name, raw[:4]) == (GO_TEXT, "PeterNeumann", signer.id)


def test_a_checkpoint_opens_only_with_the_logs_key() -> None:
    log = Signer.generate("log.example/stela")
    text = checkpoint_text("log.example/stela", 7, b"\x01" * 32)
    note = f"{text}\n{log.sign(text)}"
    opened = open_checkpoint(note, Verifier.parse(log.verifier()))
    assert (opened.origin, opened.size, opened.root) == ("log.example/stela", 7, b"\x01" * 32)
    with pytest.raises(NoteError):
        open_checkpoint(note, Verifier.parse(Signer.generate("log.example/stela").verifier()))
    with pytest.raises(NoteError):
        open_checkpoint(note.replace("\n7\n", "\n8\n"), Verifier.parse(log.verifier()))


def test_a_cosignature_binds_the_witness_key_the_time_and_the_checkpoint_text() -> None:
    log, witness = Signer.generate("log.example/stela"), Signer.generate("witness.example/w", COSIGNATURE)
    text = checkpoint_text("log.example/stela", 7, b"\x02" * 32)
    note = f"{text}\n{log.sign(text)}" + witness.cosign(text, 1_700_000_000)
    assert witness.id == hashlib.sha256(b"witness.example/w\n\x04" + witness.public).digest()[:4]
    assert cosigned_by(note, Verifier.parse(witness.verifier())) == 1_700_000_000
    assert cosigned_by(note, Verifier.parse(Signer.generate("witness.example/w", COSIGNATURE).verifier())) is None
    other = checkpoint_text("log.example/stela", 8, b"\x02" * 32)
    moved = f"{other}\n{log.sign(other)}" + witness.cosign(text, 1_700_000_000)
    assert cosigned_by(moved, Verifier.parse(witness.verifier())) is None


def test_make_run_keeps_one_development_key_and_a_deployment_signs_only_with_its_configured_key(tmp_path) -> None:
    from service.commands.transparency import log_signer

    first = log_signer(None, str(tmp_path), "127.0.0.1:8000/stela")
    assert first is not None and (tmp_path / "log-signing.key").stat().st_mode & 0o777 == 0o600
    assert log_signer(None, str(tmp_path), "127.0.0.1:8000/stela").verifier() == first.verifier()
    configured = Signer.generate("play.example.org/stela")
    assert log_signer(configured.private_text(), None, "ignored").verifier() == configured.verifier()
    assert log_signer(None, None, "play.example.org/stela") is None
