"""`stela serve`: the HTTP server, one or several worker processes behind one port.

uvicorn with uvloop and httptools is the shipped stack (`STELA_SERVER=uvicorn`, measured
against granian in bench.http). With `STELA_WORKERS=N` the parent binds the port once and N
processes accept on it, each with its own app, pool and fan-out; they see each other's
appends only through Redis, so more than one worker needs REDIS_URL, and an external
DATABASE_URL (an embedded PostgreSQL belongs to one process). On SIGTERM each worker stops
accepting, tells its SSE streams to close at once, then finishes the requests in flight.

Unless `STELA_BOTS=off` (or `--no-bots`), each worker process also runs a bot worker against its own
port once it serves (`service.bots.embedded`), under a name stable across restarts (so a restart
resumes its bots), with the admin token: the configured one, the embedded mode's, or else one made
at random for this run and known to nobody else.
"""

from __future__ import annotations

import importlib
import os
import secrets
import socket
from pathlib import Path
from typing import Any

import msgspec
import structlog
import uvicorn

from service.bots.embedded import EmbeddedWorker
from service.edge.middleware import admin_token_problem, parse_networks
from service.ops.memory import settle_memory
from service.ops.settings import Settings
from service.cli.wire import HttpProtocol

log = structlog.get_logger("stela.serve")

APP = "service.cli.serve:served_app"
BOTS = ("embedded", "off")  # STELA_BOTS


def served_app() -> Any:
    """The app as `stela serve` runs it: settings from the environment, metrics on their own port."""
    from service.edge.app import create_app

    settings = Settings.from_env()
    extra = {"metrics_port": settings.metrics_port} if settings.metrics_port > 0 else {}
    return create_app(settings, extra=extra)


class ConfigError(Exception):
    """The settings ask for something that cannot run."""


def check(settings: Settings) -> None:
    """ConfigError when the worker count does not fit the rest of the settings."""
    if settings.workers < 1:
        raise ConfigError("STELA_WORKERS must be at least 1")
    if settings.pg_append_slots < 1:
        raise ConfigError("STELA_PG_APPEND_SLOTS must be at least 1")
    if settings.pg_lock_timeout_ms < 0:
        raise ConfigError("STELA_PG_LOCK_TIMEOUT_MS must be at least 0")
    if settings.rate_limit_window_seconds < 1:  # the budgets count in whole windows (`now // window`)
        raise ConfigError("STELA_RATE_LIMIT_WINDOW_SECONDS must be at least 1")
    if settings.argon2_time_cost < 1 or settings.argon2_parallelism < 1:
        raise ConfigError("STELA_ARGON2_TIME_COST and STELA_ARGON2_PARALLELISM must be at least 1")
    if settings.argon2_memory_kib < 8 * settings.argon2_parallelism:  # Argon2's own floor (RFC 9106, 3.1)
        raise ConfigError("STELA_ARGON2_MEMORY_KIB must be at least 8 x STELA_ARGON2_PARALLELISM")
    if settings.workers > 1 and not settings.redis_url:
        raise ConfigError("STELA_WORKERS > 1 needs REDIS_URL: each worker has its own fan-out, and only "
                          "Redis carries one worker's appends to another's SSE streams")
    if settings.workers > 1 and not settings.database_url:
        raise ConfigError("STELA_WORKERS > 1 needs DATABASE_URL: the embedded PostgreSQL serves one process")
    if settings.bots not in BOTS:
        raise ConfigError(f"STELA_BOTS must be one of {', '.join(BOTS)}")
    if problem := admin_token_problem(settings.admin_token, settings.development):
        raise ConfigError(f"{problem} (or STELA_ENV=development)")
    try:
        parse_networks(settings.trusted_proxies)
    except ValueError as exc:
        raise ConfigError(f"STELA_TRUSTED_PROXIES: {exc}") from exc


def embedded_admin_token(settings: Settings) -> Settings:
    """In the embedded mode without STELA_ADMIN_TOKEN: a random token kept in the data folder (made once)."""
    if settings.admin_token or settings.database_url:
        return settings
    path = Path(settings.data_dir) / "admin-token"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(secrets.token_hex(32) + "\n")
    os.environ["STELA_ADMIN_TOKEN"] = token = path.read_text().strip()  # what the workers' settings read
    # a logger taken now, not the module's (cached on first use under whatever configuration was current then)
    structlog.get_logger("stela.serve").info("admin_token", path=str(path),
                                             note="the embedded mode's admin token is kept in this file")
    return msgspec.structs.replace(settings, admin_token=token)


def bots_admin_token(settings: Settings) -> Settings:
    """With embedded bots and no admin token yet: a random one for this run (the workers' settings read it)."""
    if settings.bots != "embedded" or settings.admin_token:
        return settings
    os.environ["STELA_ADMIN_TOKEN"] = token = secrets.token_hex(32)
    return msgspec.structs.replace(settings, admin_token=token)


def embedded_bots(settings: Settings, port: int, index: int | None = None) -> EmbeddedWorker | None:
    """The bot worker of one serving process (`index`: its number among several), None with STELA_BOTS=off."""
    if settings.bots != "embedded" or not settings.admin_token:
        return None
    name = f"{socket.gethostname()}-serve-{port}" + ("" if index is None else f"-{index}")
    return EmbeddedWorker(settings.admin_token, name)


def own_url(server: Any) -> str:
    """Where this process's own bot worker reaches it: the first bound socket, wildcard made loopback."""
    host, port = server.servers[0].sockets[0].getsockname()[:2]
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _litestar(app: Any) -> Any:
    """The Litestar app inside uvicorn's wrappers."""
    while app is not None and not hasattr(app, "state") and hasattr(app, "app"):
        app = app.app
    return app


class Server(uvicorn.Server):
    """uvicorn's server; `ready` runs once this process is serving (the port is bound and the app started)."""

    def __init__(self, config: uvicorn.Config, ready: Any = None, bots: EmbeddedWorker | None = None) -> None:
        super().__init__(config)
        self.ready, self.bots = ready, bots

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets)
        if not self.should_exit:  # (a failed start-up asks to exit)
            settle_memory()
            if self.ready is not None:
                self.ready()
            if self.bots is not None:
                self.bots.start(own_url(self))

    async def shutdown(self, sockets: Any = None) -> None:
        # SIGTERM: stop accepting (new connections and new requests on idle ones) first, then end the SSE
        # streams at once (uvicorn would wait for them), then stop the bots, then finish the requests in
        # flight. In this order a stream told `closing` that reconnects meets a refused connection and backs
        # off, never a new stream that this closing server would end at once, again and again until it
        # stopped listening (up to the bots' stop, 5 s).
        from service.edge.lifespan import begin_shutdown

        for server in self.servers:
            server.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()  # an idle keep-alive connection closes now, a busy one after its response
        app = _litestar(getattr(self.config, "loaded_app", None))
        if app is not None and hasattr(app, "state"):
            begin_shutdown(app)
        if self.bots is not None:
            await self.bots.stop()
        await super().shutdown(sockets)


def _uvicorn(settings: Settings, factory: str, host: str, port: int, listening: Any) -> None:
    # proxy_headers=False: the client address comes from service.edge.middleware (STELA_TRUSTED_PROXIES) only, so a
    # local client cannot pick its rate-limit bucket; log_config=None: uvicorn logs through our JSON lines;
    # http: uvicorn's httptools protocol, a response's head and body in one write (service.cli.wire)
    config = uvicorn.Config(factory, factory=True, host=host, port=port, workers=settings.workers,
                            loop="uvloop", http=HttpProtocol, log_level="warning", access_log=False,
                            log_config=None, proxy_headers=False,
                            timeout_graceful_shutdown=max(1, round(settings.drain_seconds)), lifespan="on",
                            timeout_keep_alive=75)  # outlive proxies' idle upstream connections
    if settings.workers == 1:
        Server(config, ready=listening, bots=embedded_bots(settings, port)).run()
        return
    from uvicorn.supervisors.multiprocess import Multiprocess, Process

    class Workers(Multiprocess):
        def init_processes(self) -> None:
            for index in range(self.processes_num):
                process = Process(self.config, self.sockets)
                # each worker closes its SSE streams on SIGTERM, and runs its own bot worker
                process._server = Server(self.config, bots=embedded_bots(settings, port, index))
                process.start()
                self.processes.append(process)

    sockets = [config.bind_socket()]
    listening()  # the port is bound: connections wait in its queue while the workers start
    Workers(config, sockets=sockets).run()


def _granian(settings: Settings, factory: str, host: str, port: int, listening: Any) -> None:
    listening()  # (granian binds inside `serve`; it says so itself if it cannot)
    if settings.bots == "embedded":  # granian has no hook once a worker serves: the bots need a worker apart
        log.warning("no_embedded_bots", detail="STELA_SERVER=granian runs no bot worker; run `stela bot-worker`")
    from granian import Granian
    from granian.constants import Interfaces, Loops

    Granian(factory, factory=True, address=host, port=port, interface=Interfaces.ASGI, workers=settings.workers,
            loop=Loops.uvloop, log_enabled=False, workers_kill_timeout=max(1, round(settings.drain_seconds))).serve()


def run(settings: Settings, factory: str = APP, host: str | None = None, port: int | None = None) -> int:
    """Serve the app made by `factory` ("module:function") until SIGTERM; 2 on a settings error."""
    from service.ops import logging as stela_logging

    stela_logging.configure(settings.log_level)
    settings = bots_admin_token(embedded_admin_token(settings))
    try:
        check(settings)
    except ConfigError as exc:  # a JSON line like every other (a log pipeline parses it; the text says what to fix)
        structlog.get_logger("stela.serve").error("config_error", detail=str(exc))
        return 2
    importlib.import_module(factory.partition(":")[0])  # fail here, not in every worker
    serve = _granian if settings.server == "granian" else _uvicorn
    host, port = host or settings.host, port or settings.port

    def listening() -> None:
        log.info("listening", url=f"http://{host}:{port}", workers=settings.workers,
                 metrics=f"http://{host}:{settings.metrics_port}/metrics" if settings.metrics_port else None)

    serve(settings, factory, host, port, listening)
    return 0
