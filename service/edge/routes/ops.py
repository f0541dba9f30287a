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

from service.container import Services
from service.edge.schemas import Health


@get("/healthz", operation_id="health", summary="Liveness: the process is up", tags=["ops"])
async def healthz() -> Health:
    return Health(status="ok")


@get("/readyz", operation_id="ready", summary="Readiness: PostgreSQL, Redis and the read models", tags=["ops"],
     description="503 when PostgreSQL is down. Redis is only a wake-up path: while it is down or hung the "
                 "service still works (status `degraded`, 200, `checks.redis` says why). A read model held back "
                 "by an open transaction of this database for `stall_after` seconds is `degraded` too: "
                 "`checks.projections` names the blocking backend, `details.projections` gives each model's lag "
                 "in events and seconds and `details.horizon_blocked_seconds` how long the horizon has stood.",
     responses={503: ResponseSpec(generate_examples=False, data_container=Health, description="a dependency is down")})
async def readyz(services: NamedDependency[Services]) -> Response[Health]:
    checks: dict[str, str] = {}
    status = "ok"
    try:
        await services.store.ping()
        checks["postgres"] = "ok"
    except Exception as exc:  # noqa: BLE001 - any failure means not ready
        checks["postgres"] = f"down: {type(exc).__name__}"
        status = "unavailable"
    if not services.settings.redis_url:
        checks["redis"] = "in-process"
    elif services.broker.healthy:
        checks["redis"] = "ok"
    else:
        checks["redis"] = f"down: {getattr(services.broker, 'reason', 'unavailable')}"
        status = "degraded" if status == "ok" else status
    details: dict[str, Any] = {}
    projector = services.projector
    if projector is not None and status != "unavailable":
        details["projections"] = await projector.lag()
        details["horizon_blocked_seconds"] = round(projector.horizon_held_seconds(), 3)
        stall = projector.stall
        if stall is None:
            checks["projections"] = "ok"
        else:
            checks["projections"] = (f"stalled: transaction {stall.xid} of backend {stall.pid} "
                                     f"({stall.state}, {stall.application_name or 'no application name'}) "
                                     f"holds every read model back")
            status = "degraded" if status == "ok" else status
    body = Health(status=status, checks=checks, details=details)
    return Response(body, status_code=503 if status == "unavailable" else 200)


async def exposition(services: Services) -> bytes:
    """The Prometheus exposition of this process (projection lag only when the database answers)."""
    if services.projector is not None:
        try:
            lags = await asyncio.wait_for(services.projector.lag(), 2)
        except Exception:  # noqa: BLE001 - the database is down or slow: the rest is still worth scraping
            lags = {}
        for name, lag in lags.items():
            services.metrics.lag_events.labels(name).set(lag["events"])
            services.metrics.lag_seconds.labels(name).set(lag["seconds"])
        services.metrics.horizon_held.set(services.projector.horizon_held_seconds())
    services.metrics.fanout_degraded.set(0 if services.broker.healthy else 1)
    services.metrics.sse.set(services.broker.connections)
    return generate_latest(services.metrics.registry)
