"""`stela serve`: the HTTP server, one or several worker processes behind one port.

uvicorn with uvloop and httptools is the shipped stack (`STELA_SERVER=uvicorn`, measured
against granian in bench.http). With `STELA_WORKERS=N` the parent binds the port once and N
processes accept on it, each with its own app, pool and fan-out; they see each other's
appends only through Redis, so more than one worker needs REDIS_URL, and an external
DATABASE_URL (an embedded PostgreSQL belongs to one process). On SIGTERM each worker tells
its SSE streams to close at once, then finishes the requests in flight.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import uvicorn

from service.settings import Settings

APP = "service.serve:served_app"


def served_app() -> Any:
    """The app as `stela serve` runs it: settings from the environment, metrics on their own port."""
    from service.app import create_app

    settings = Settings.from_env()
    extra = {"metrics_port": settings.metrics_port} if settings.metrics_port > 0 else {}
    return create_app(settings, extra=extra)


class ConfigError(Exception):
    """The settings ask for something that cannot run."""


def check(settings: Settings) -> None:
    """ConfigError when the worker count does not fit the rest of the settings."""
    if settings.workers < 1:
        raise ConfigError("STELA_WORKERS must be at least 1")
    if settings.workers > 1 and not settings.redis_url:
        raise ConfigError("STELA_WORKERS > 1 needs REDIS_URL: each worker has its own fan-out, and only "
                          "Redis carries one worker's appends to another's SSE streams")
    if settings.workers > 1 and not settings.database_url:
        raise ConfigError("STELA_WORKERS > 1 needs DATABASE_URL: the embedded PostgreSQL serves one process")


def _litestar(app: Any) -> Any:
    """The Litestar app inside uvicorn's wrappers."""
    while app is not None and not hasattr(app, "state") and hasattr(app, "app"):
        app = app.app
    return app


class Server(uvicorn.Server):
    def handle_exit(self, sig: int, frame: Any) -> None:
        # SIGTERM: stop accepting, end SSE streams at once (uvicorn would wait for them), finish requests
        from service.lifespan import begin_shutdown

        app = _litestar(getattr(self.config, "loaded_app", None))
        if app is not None and hasattr(app, "state"):
            begin_shutdown(app)
        super().handle_exit(sig, frame)


def _uvicorn(settings: Settings, factory: str, host: str, port: int) -> None:
    config = uvicorn.Config(factory, factory=True, host=host, port=port, workers=settings.workers,
                            loop="uvloop", http="httptools", log_level="warning", access_log=False,
                            timeout_graceful_shutdown=10, lifespan="on",
                            timeout_keep_alive=75)  # outlive proxies' idle upstream connections
    server = Server(config)
    if settings.workers == 1:
        server.run()
        return
    from uvicorn.supervisors.multiprocess import Multiprocess, Process

    class Workers(Multiprocess):
        def init_processes(self) -> None:
            for _ in range(self.processes_num):
                process = Process(self.config, self.sockets)
                process._server = Server(self.config)  # each worker closes its SSE streams on SIGTERM
                process.start()
                self.processes.append(process)

    Workers(config, sockets=[config.bind_socket()]).run()


def _granian(settings: Settings, factory: str, host: str, port: int) -> None:
    from granian import Granian
    from granian.constants import Interfaces, Loops

    Granian(factory, factory=True, address=host, port=port, interface=Interfaces.ASGI, workers=settings.workers,
            loop=Loops.uvloop, log_enabled=False, workers_kill_timeout=10).serve()


def run(settings: Settings, factory: str = APP, host: str | None = None, port: int | None = None) -> int:
    """Serve the app made by `factory` ("module:function") until SIGTERM; 2 on a settings error."""
    try:
        check(settings)
    except ConfigError as exc:
        print(f"stela serve: {exc}", file=sys.stderr)
        return 2
    importlib.import_module(factory.partition(":")[0])  # fail here, not in every worker
    serve = _granian if settings.server == "granian" else _uvicorn
    serve(settings, factory, host or settings.host, port or settings.port)
    return 0
