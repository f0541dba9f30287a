"""The checkpoint worker: every `every` seconds (STELA_LOG_CHECKPOINT_SECONDS) it integrates the
transparency log's committed leaves and signs a checkpoint when the tree has grown
(`service.commands.transparency.Transparency.issue`). Replicas may all run it: the integration is
serialised by an advisory lock, and a checkpoint is kept once per size (Ed25519 signs deterministically,
so every replica signs the same note for the same tree)."""

from __future__ import annotations

from service.commands.transparency import Transparency
from service.ops.background import Periodic


class CheckpointWorker(Periodic):
    name = "checkpoints"

    def __init__(self, transparency: Transparency, every: float = 10.0) -> None:
        super().__init__(every)
        self.transparency = transparency
        self.issued = 0

    async def cycle(self) -> bool:
        before = await self.transparency.ledger.checkpoint()
        after = await self.transparency.issue()
        if after is not None and (before is None or after.size > before.size):
            self.issued += 1
        return False
