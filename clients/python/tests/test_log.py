"""The transparency log through the SDK (docs/audit.md): a finished game's leaves are proven included in a
signed checkpoint, the checkpoint is consistent with a later one, and a witness's cosignature submitted through
the SDK is served with the checkpoint from then on. The same names on the async client (test_sync.py)."""

from __future__ import annotations

import base64
import time

from service.commands.notes import COSIGNATURE, Signer, Verifier, split
from stela_client import SyncClient

LOG = Signer.generate("sdk.example/stela")


def checkpointed(client: SyncClient, game_id: str, seconds: float = 60.0) -> tuple[str, str]:
    """Sign checkpoints until one includes the creation leaf of game `game_id` (leaves are integrated a
    moment after their commit); that checkpoint's note and the game's stream id."""
    deadline = time.monotonic() + seconds
    while True:
        note = client.issue_checkpoint()
        streams = [leaf.stream_id for leaf in client.log_leaves(limit=1000).leaves if game_id in leaf.stream_id]
        if streams:
            return note, streams[0]
        assert time.monotonic() < deadline, "the game's creation was not checkpointed in time"
        time.sleep(0.1)


def test_a_game_is_proven_in_a_signed_checkpoint_and_a_witness_cosigns_it(own_server):
    own_server.env.update(STELA_LOG_KEY=LOG.private_text(), STELA_LOG_CHECKPOINT_SECONDS="3600")
    own_server.start()
    with SyncClient(own_server.url) as ann:
        ann.register("Ann")
        info = ann.log_info()
        assert info.public_key and Verifier.parse(info.public_key).text() == LOG.verifier()
        game = ann.create_game("coatl", 2)
        note, stream_id = checkpointed(ann, game.id)
        text, signatures = split(note)
        size = int(text.splitlines()[1])
        assert [name for name, _ in signatures] == [LOG.name]
        assert ann.checkpoint_of_size(size) == note
        proof = ann.inclusion_proof(stream_id, size)
        assert proof.leaves, proof

        witness = Signer.generate("witness.example/w1", COSIGNATURE)
        cosigned = ann.add_cosignature(note + witness.cosign(text, int(time.time())), witness.verifier())
        assert witness.name in [name for name, _ in split(cosigned)[1]]
        assert witness.name in [name for name, _ in split(ann.checkpoint_of_size(size))[1]]

        other = ann.create_game("tikal", 2)
        later = split(checkpointed(ann, other.id)[0])[0]
        consistency = ann.consistency_proof(size, int(later.splitlines()[1]))
        assert consistency.path and all(len(base64.b64decode(h)) == 32 for h in consistency.path), consistency
