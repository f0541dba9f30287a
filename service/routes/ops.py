"""Operations: liveness, readiness (PostgreSQL, Redis, projection lag) and Prometheus metrics."""

from __future__ import annotations

from litestar.di import NamedDependency
from litestar import Response, get
from litestar.openapi.datastructures import ResponseSpec
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from service.container import Services
from service.schemas import Health


@get("/healthz", operation_id="health", summary="Liveness: the process is up", tags=["ops"])
async def healthz() -> Health:
    return Health(status="ok")


@get("/readyz", operation_id="ready", summary="Readiness: PostgreSQL and Redis reachable", tags=["ops"],
     description="503 when PostgreSQL is down. Redis is only a wake-up path: when it is down the "
                 "service still works (status `degraded`, 200). Details include projection lag.",
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
    try:
        await services.broker.ping()
        checks["redis"] = "ok" if services.settings.redis_url else "in-process"
    except Exception as exc:  # noqa: BLE001
        checks["redis"] = f"down: {type(exc).__name__}"
        status = "degraded" if status == "ok" else status
    details = {}
    if services.projector is not None and status != "unavailable":
        details["projections"] = await services.projector.lag()
    body = Health(status=status, checks=checks, details=details)
    return Response(body, status_code=503 if status == "unavailable" else 200)


@get("/metrics", operation_id="metrics", summary="Prometheus metrics", tags=["ops"],
     responses={200: ResponseSpec(generate_examples=False, data_container=str, media_type="text/plain", description="exposition")})
async def metrics(services: NamedDependency[Services]) -> Response[bytes]:
    if services.projector is not None:
        for name, lag in (await services.projector.lag()).items():
            services.metrics.lag_events.labels(name).set(lag["events"])
            services.metrics.lag_seconds.labels(name).set(lag["seconds"])
    services.metrics.sse.set(services.broker.connections)
    return Response(generate_latest(services.metrics.registry), media_type=CONTENT_TYPE_LATEST)
