"""The embedded projector: with `STELA_PROJECTOR=embedded` a `Projector` runs in the serving process
(`Services.projector`, whose `lag()` feeds /readyz and /metrics), and `stela projector` runs one on
its own. Either is woken by the appends its process hears of, at most once per `WAKE_EVERY`
seconds, so that under load it projects batches of events rather than one transaction per
projection per command.
"""

from __future__ import annotations

from collections.abc import Callable

from service.live.fanout import Broker
from service.ops.background import WAKE_EVERY, coalesced


def wake_on_appends(wake: Callable[[], None], broker: Broker, delay: float = WAKE_EVERY) -> None:
    """Call `wake` (a projector's or a worker's) `delay` seconds after the first of each burst of
    appends `broker` hears of."""
    broker.on_append.append(coalesced(wake, delay))
