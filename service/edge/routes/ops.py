"""Operations: liveness, readiness (PostgreSQL, Redis, projection lag) and the Prometheus exposition.

The exposition is served on its own port (`service.ops.metrics.serve_metrics`), not by these routes.
"""

from __future__ import annotations

import asyncio
from typing import Any

from litestar.di import NamedDependency
from litestar import Response, get
from litestar.openapi.datastructures import ResponseSpec
from prometheus_client import generate_latest

from service.edge.desks import Probes
from service.edge.schemas import Health
from service.store.readside import ReadSide

HORIZON_BLOCKED_AFTER = 1.0  # seconds a transaction may hold the horizon before it is reported (a commit's moment)


@get("/healthz", operation_id="health", summary="Liveness: the process is up", tags=["ops"])
async def healthz() -> Health:
    return Health(status="ok")


@get("/readyz", operation_id="ready", summary="Readiness: PostgreSQL, Redis and the read models", tags=["ops"],
     description="503 when PostgreSQL is down. Redis is only a wake-up path: while it is down or hung the "
                 "service still works (status `degraded`, 200, `checks.redis` says why). A read model held back "
                 "by an open transaction of this database for a second is `degraded` too, on every replica "
                 "(projector or not): `checks.horizon` names the blocking backend and "
                 "`details.horizon_blocked_seconds` says how long its transaction has been open; where a "
                 "projector runs, `details.projections` gives each model's lag in events and seconds.",
     responses={503: ResponseSpec(generate_examples=False, data_container=Health, description="a dependency is down")})
async def readyz(probes: NamedDependency[Probes]) -> Response[Health]:
    checks: dict[str, str] = {}
    status = "ok"
    try:
        await probes.store.ping()
        checks["postgres"] = "ok"
    except Exception as exc:  # noqa: BLE001 - any failure means not ready
        checks["postgres"] = f"down: {type(exc).__name__}"
        status = "unavailable"
    if not probes.redis_url:
        checks["redis"] = "in-process"
    elif probes.broker.healthy:
        checks["redis"] = "ok"
    else:
        checks["redis"] = f"down: {getattr(probes.broker, 'reason', 'unavailable')}"
        status = "degraded" if status == "ok" else status
    details: dict[str, Any] = {}
    if status != "unavailable" and await _horizon(probes, checks, details):
        status = "degraded" if status == "ok" else status
    projector = probes.projector
    if projector is not None and status != "unavailable":
        details["projections"] = await projector.lag()
    body = Health(status=status, checks=checks, details=details)
    return Response(body, status_code=503 if status == "unavailable" else 200)


async def blocked_seconds(probes: Probes) -> tuple[float, str | None]:
    """How long an open transaction has held this database's horizon (0: nobody past a commit's moment),
    and who it is; (0, None) for a store without one."""
    if not isinstance(probes.store, ReadSide):
        return 0.0, None
    found = await asyncio.wait_for(probes.store.horizon_blocker(), 2)
    if found is None or (found.seconds or 0.0) < HORIZON_BLOCKED_AFTER:
        return 0.0, None
    return float(found.seconds or 0.0), (f"blocked: transaction {found.xid} of backend {found.pid} "
                                         f"({found.state}, {found.application_name or 'no application name'}) "
                                         f"holds every read model back")


async def _horizon(probes: Probes, checks: dict[str, str], details: dict[str, Any]) -> bool:
    """Report the horizon into `checks` and `details`; whether it is blocked."""
    try:
        seconds, why = await blocked_seconds(probes)
    except Exception as exc:  # noqa: BLE001 - the database answered the ping; say so, and stay ready
        checks["horizon"] = f"unknown: {type(exc).__name__}"
        return False
    checks["horizon"] = why or "ok"
    details["horizon_blocked_seconds"] = round(seconds, 3)
    return why is not None


async def exposition(probes: Probes) -> bytes:
    """The Prometheus exposition of this process (projection lag only when the database answers)."""
    if probes.projector is not None:
        try:
            lags = await asyncio.wait_for(probes.projector.lag(), 2)
        except Exception:  # noqa: BLE001 - the database is down or slow: the rest is still worth scraping
            lags = {}
        for name, lag in lags.items():
            probes.metrics.lag_events.labels(name).set(lag["events"])
            probes.metrics.lag_seconds.labels(name).set(lag["seconds"])
    try:
        probes.metrics.horizon_held.set((await blocked_seconds(probes))[0])
    except Exception:  # noqa: BLE001 - the database is down or slow: the rest is still worth scraping
        pass
    probes.metrics.fanout_degraded.set(0 if probes.broker.healthy else 1)
    probes.metrics.sse.set(probes.broker.connections)
    return generate_latest(probes.metrics.registry)
