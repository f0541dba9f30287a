"""Signed notes (C2SP signed-note), tlog checkpoints (C2SP tlog-checkpoint) and witness cosignatures
(C2SP tlog-cosignature), with Ed25519 from `cryptography`.

A checkpoint's note text is three lines: the origin, the tree size in decimal, the root hash in
standard base64; each ends with a newline. A signature line is "— <key name> <base64(key id || sig)>"
after one empty line; the log's key id is the first four bytes of SHA-256(name || 0x0A || 0x01 || public
key) and its signature is Ed25519 over the note text. A cosignature (type 0x04) signs "cosignature/v1\n"
"time <POSIX seconds>\n" followed by the note text, and its line carries key id || u64 timestamp (big
endian) || signature. Keys are written as Go's `note` package writes them: a verifier key
"<name>+<key id hex>+<base64(type || public key)>" and a signer key
"PRIVATE+KEY+<name>+<key id hex>+<base64(type || 32-byte seed)>".
"""

from __future__ import annotations

import base64
import hashlib
import struct

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ED25519, COSIGNATURE = 0x01, 0x04
DASH = "\u2014"


class NoteError(ValueError):
    """A note, key or signature that does not parse or does not verify."""


class Checkpoint(msgspec.Struct, frozen=True):
    origin: str
    size: int
    root: bytes


def key_id(name: str, kind: int, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4]


def _public(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


class Signer:
    """An Ed25519 key with its name, signing as the log (type 0x01) or as a witness (type 0x04)."""

    def __init__(self, name: str, key: Ed25519PrivateKey, kind: int = ED25519) -> None:
        if not name or any(c.isspace() for c in name) or "+" in name:
            raise NoteError(f"a key name has no spaces and no '+': {name!r}")
        self.name, self.key, self.kind = name, key, kind
        self.public = _public(key)
        self.id = key_id(name, kind, self.public)

    @classmethod
    def generate(cls, name: str, kind: int = ED25519) -> "Signer":
        return cls(name, Ed25519PrivateKey.generate(), kind)

    @classmethod
    def parse(cls, text: str) -> "Signer":
        """A signer from its "PRIVATE+KEY+name+id+base64" text."""
        parts = text.strip().split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise NoteError("a signer key reads PRIVATE+KEY+<name>+<id>+<base64>")
        raw = base64.b64decode(parts[4])
        signer = cls(parts[2], Ed25519PrivateKey.from_private_bytes(raw[1:]), raw[0])
        if signer.id.hex() != parts[3]:
            raise NoteError("the signer key's id does not match its name and key")
        return signer

    def private_text(self) -> str:
        seed = self.key.private_bytes_raw()
        return f"PRIVATE+KEY+{self.name}+{self.id.hex()}+{base64.b64encode(bytes([self.kind]) + seed).decode()}"

    def verifier(self) -> str:
        """The verifier key anyone checks this signer's signatures with."""
        return f"{self.name}+{self.id.hex()}+{base64.b64encode(bytes([self.kind]) + self.public).decode()}"

    def sign(self, text: str) -> str:
        """The log's signature line over a note text."""
        sig = self.key.sign(text.encode())
        return f"{DASH} {self.name} {base64.b64encode(self.id + sig).decode()}\n"

    def cosign(self, text: str, timestamp: int) -> str:
        """A witness's cosignature line over a checkpoint's note text at `timestamp` (POSIX seconds)."""
        sig = self.key.sign(cosigned_message(text, timestamp))
        return f"{DASH} {self.name} {base64.b64encode(self.id + struct.pack('>Q', timestamp) + sig).decode()}\n"


class Verifier(msgspec.Struct, frozen=True):
    name: str
    id: bytes
    kind: int
    public: bytes

    @classmethod
    def parse(cls, text: str) -> "Verifier":
        try:
            name, hex_id, b64 = text.strip().split("+", 2)
            raw = base64.b64decode(b64, validate=True)
        except ValueError as exc:
            raise NoteError("a verifier key reads <name>+<id>+<base64>") from exc
        found = cls(name, bytes.fromhex(hex_id), raw[0], raw[1:])
        if key_id(name, found.kind, found.public) != found.id or found.kind not in (ED25519, COSIGNATURE):
            raise NoteError("the verifier key's id does not match its name and key")
        return found

    def text(self) -> str:
        return f"{self.name}+{self.id.hex()}+{base64.b64encode(bytes([self.kind]) + self.public).decode()}"

    def check(self, message: bytes, signature: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except InvalidSignature:
            return False
        return True


def cosigned_message(text: str, timestamp: int) -> bytes:
    return f"cosignature/v1\ntime {timestamp}\n{text}".encode()


def checkpoint_text(origin: str, size: int, root: bytes) -> str:
    return f"{origin}\n{size}\n{base64.b64encode(root).decode()}\n"


def split(note: str) -> tuple[str, list[tuple[str, bytes]]]:
    """A note's text and its signature lines as (key name, decoded key id || signature)."""
    text, sep, rest = note.partition("\n\n")
    if not sep or not rest.endswith("\n"):
        raise NoteError("a signed note is its text, an empty line and signature lines")
    lines = []
    for line in rest[:-1].split("\n"):
        prefix, _, sig = line.rpartition(" ")
        if not prefix.startswith(DASH + " "):
            raise NoteError(f"not a signature line: {line!r}")
        lines.append((prefix[2:], base64.b64decode(sig)))
    return text + "\n", lines


def open_checkpoint(note: str, log_key: Verifier) -> Checkpoint:
    """The checkpoint a note states, once the log's key has signed it (NoteError otherwise)."""
    text, signatures = split(note)
    good = [s for name, s in signatures if name == log_key.name and s[:4] == log_key.id]
    if not good or not all(log_key.check(text.encode(), s[4:]) for s in good):
        raise NoteError("the checkpoint is not signed by the log's key")
    lines = text.split("\n")
    if len(lines) < 4 or not lines[1].isdigit():
        raise NoteError("a checkpoint's text is origin, size and root hash")
    return Checkpoint(lines[0], int(lines[1]), base64.b64decode(lines[2]))


def cosigned_by(note: str, witness: Verifier) -> int | None:
    """The time a witness's valid cosignature on the note carries, or None when it has none."""
    text, signatures = split(note)
    for name, s in signatures:
        if name == witness.name and s[:4] == witness.id and len(s) == 76:
            timestamp = struct.unpack(">Q", s[4:12])[0]
            if witness.check(cosigned_message(text, timestamp), s[12:]):
                return timestamp
    return None
