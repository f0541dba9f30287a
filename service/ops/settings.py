"""Settings from the environment, read in one place.

| variable | default | meaning |
|---|---|---|
| DATABASE_URL | (none) | PostgreSQL DSN; without it an embedded PostgreSQL runs in STELA_DATA_DIR |
| REDIS_URL | (none) | Redis URL for fan-out between replicas; without it fan-out is in-process |
| STELA_HOST / STELA_PORT | 127.0.0.1 / 8000 | where `stela serve` listens |
| STELA_DATA_DIR | ./data | embedded PostgreSQL data folder |
| STELA_ADMIN_TOKEN | (none) | bearer token with admin rights (export of running games) |
| STELA_SNAPSHOT_EVERY | 50 | store a state snapshot every N events of a stream |
| STELA_HEARTBEAT_SECONDS | 15 | SSE heartbeat interval |
| STELA_RATE_LIMIT | 600 | requests per minute per client before 429 (0 = off) |
| STELA_PROJECTOR | embedded | `embedded` runs the projector inside serve; `off` leaves it to `stela projector` |
| STELA_BOTS | embedded | `embedded` runs a bot worker inside serve (against its own port); `off` (or `serve --no-bots`) leaves the bots to `stela bot-worker` |
| STELA_LOG_LEVEL | info | structlog level |
| STELA_DB_POOL_MAX | 20 | PostgreSQL connections per process |
| STELA_PG_NOTIFY | off | also NOTIFY projectors from every append (serialises commits; they wake through the fan-out and a short poll without it) |
| STELA_WORKERS | 1 | `stela serve` worker processes behind one port (more than 1 needs REDIS_URL and DATABASE_URL) |
| STELA_SERVER | uvicorn | HTTP server of `stela serve`: `uvicorn` (uvloop + httptools) or `granian` (SIGTERM waits for SSE streams) |
| STELA_ENV | production | `development` accepts a short or placeholder STELA_ADMIN_TOKEN; anything else refuses to start with one |
| STELA_TRUSTED_PROXIES | (none) | addresses/networks of proxies whose `X-Forwarded-For` is believed (comma-separated; none: the peer is the client) |
| STELA_CORS_ORIGINS | * | origins browsers may call the API from (comma-separated; `*` any) |
| STELA_METRICS_PORT | 9100 | where `stela serve` serves `/metrics` (its own port, not the API's; 0 = off) |
| STELA_RATE_LIMIT_WINDOW_SECONDS | 60 | the fixed window (at least 1 s) those budgets count in (the "minute" of STELA_RATE_LIMIT and STELA_STREAM_RATE_LIMIT; tests shorten it) |
| STELA_STREAM_RATE_LIMIT | 120 | stream openings per minute per client (a budget apart from STELA_RATE_LIMIT; 0 = off) |
| STELA_MAX_STREAMS_PER_CLIENT | 50 | open SSE streams per player or anonymous address in one process (0 = no cap) |
| STELA_STREAM_MAX_GAMES | 32 | games one multiplexed stream (`GET /v1/stream`) may follow |
| STELA_DB_COMMAND_TIMEOUT | 10 | seconds a database statement may wait (a locked table answers 503 instead of hanging) |
| STELA_DRAIN_SECONDS | 10 | how long SIGTERM waits for requests in flight (those still running are answered 503) |
| STELA_SIGN_IN_FAILURES | 10 | sign-in attempts per login and address in a window before 429; ten times as many per login and per address (docs/accounts.md) |
| STELA_SIGN_IN_WINDOW_SECONDS | 900 | that window |
| STELA_ARGON2_TIME_COST / STELA_ARGON2_MEMORY_KIB / STELA_ARGON2_PARALLELISM | 3 / 65536 / 4 | the Argon2id cost of new password hashes (RFC 9106's second recommendation; a hash keeps its own, so old ones still verify). Lower costs make a stolen hash cheaper to guess: the test suite lowers them to save time |
| STELA_PUBLIC_URL | http://STELA_HOST:STELA_PORT | the API's origin as clients reach it (scheme, host, port; no path) |
| STELA_OAUTH_ISSUER | STELA_PUBLIC_URL | the OAuth issuer of the RFC 8414 metadata (never taken from a request's Host) |
| STELA_LOG_KEY | (none) | the transparency log's Ed25519 signing key, `PRIVATE+KEY+<name>+<id>+<base64>` (docs/audit.md); without it the embedded `make run` generates one into STELA_DATA_DIR and a deployment signs no checkpoint |
| STELA_LOG_CHECKPOINT_SECONDS | 10 | how often the checkpoint worker signs a checkpoint of the grown log |
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec


class Settings(msgspec.Struct, kw_only=True, frozen=True):
    database_url: str | None = None
    redis_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: str = "data"
    admin_token: str | None = None
    snapshot_every: int = 50
    heartbeat_seconds: float = 15.0
    rate_limit: int = 600
    rate_limit_window_seconds: int = 60
    projector: str = "embedded"
    bots: str = "embedded"
    log_level: str = "info"
    db_pool_max: int = 20
    pg_notify: bool = False
    pg_append_slots: int = 4  # append statements in flight before appends wait to go together (group commit)
    pg_lock_timeout_ms: int = 200  # an append waits no longer for a lock another transaction holds (0: no limit)
    workers: int = 1
    server: str = "uvicorn"
    env: str = "production"
    trusted_proxies: str | None = None
    cors_origins: str = "*"
    metrics_port: int = 9100
    stream_rate_limit: int = 120
    max_streams_per_client: int = 50
    stream_max_games: int = 32
    db_command_timeout: float = 10.0
    drain_seconds: float = 10.0
    sign_in_failures: int = 10
    sign_in_window_seconds: float = 900.0
    argon2_time_cost: int = 3
    argon2_memory_kib: int = 65536
    argon2_parallelism: int = 4
    public_url: str | None = None
    oauth_issuer: str | None = None
    log_key: str | None = None
    log_checkpoint_seconds: float = 10.0

    @property
    def issuer(self) -> str:
        """The OAuth issuer: STELA_OAUTH_ISSUER, else STELA_PUBLIC_URL, else where `stela serve` listens."""
        return (self.oauth_issuer or self.public_url or f"http://{self.host}:{self.port}").rstrip("/")

    @property
    def development(self) -> bool:
        return self.env.lower() in ("development", "dev")

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> "Settings":
        """Settings from `env` (default os.environ); empty values count as unset."""
        env = dict(os.environ if env is None else env)

        def get(name: str) -> str | None:
            value = env.get(name)
            return value if value else None

        return cls(
            database_url=get("DATABASE_URL"),
            redis_url=get("REDIS_URL"),
            host=get("STELA_HOST") or "127.0.0.1",
            port=int(get("STELA_PORT") or 8000),
            data_dir=get("STELA_DATA_DIR") or str(Path("data").absolute()),
            admin_token=get("STELA_ADMIN_TOKEN"),
            snapshot_every=int(get("STELA_SNAPSHOT_EVERY") or 50),
            heartbeat_seconds=float(get("STELA_HEARTBEAT_SECONDS") or 15),
            rate_limit=int(get("STELA_RATE_LIMIT") or 600),
            rate_limit_window_seconds=int(get("STELA_RATE_LIMIT_WINDOW_SECONDS") or 60),
            projector=get("STELA_PROJECTOR") or "embedded",
            bots=get("STELA_BOTS") or "embedded",
            log_level=get("STELA_LOG_LEVEL") or "info",
            db_pool_max=int(get("STELA_DB_POOL_MAX") or 20),
            pg_notify=(get("STELA_PG_NOTIFY") or "off").lower() not in ("off", "0", "false", "no"),
            pg_append_slots=int(get("STELA_PG_APPEND_SLOTS") or 4),
            pg_lock_timeout_ms=int(get("STELA_PG_LOCK_TIMEOUT_MS") or 200),
            workers=int(get("STELA_WORKERS") or 1),
            server=get("STELA_SERVER") or "uvicorn",
            env=get("STELA_ENV") or "production",
            trusted_proxies=get("STELA_TRUSTED_PROXIES"),
            cors_origins=get("STELA_CORS_ORIGINS") or "*",
            metrics_port=int(get("STELA_METRICS_PORT") or 9100),
            stream_rate_limit=int(get("STELA_STREAM_RATE_LIMIT") or 120),
            max_streams_per_client=int(get("STELA_MAX_STREAMS_PER_CLIENT") or 50),
            stream_max_games=int(get("STELA_STREAM_MAX_GAMES") or 32),
            db_command_timeout=float(get("STELA_DB_COMMAND_TIMEOUT") or 10),
            drain_seconds=float(get("STELA_DRAIN_SECONDS") or 10),
            sign_in_failures=int(get("STELA_SIGN_IN_FAILURES") or 10),
            sign_in_window_seconds=float(get("STELA_SIGN_IN_WINDOW_SECONDS") or 900),
            argon2_time_cost=int(get("STELA_ARGON2_TIME_COST") or 3),
            argon2_memory_kib=int(get("STELA_ARGON2_MEMORY_KIB") or 65536),
            argon2_parallelism=int(get("STELA_ARGON2_PARALLELISM") or 4),
            public_url=get("STELA_PUBLIC_URL"),
            oauth_issuer=get("STELA_OAUTH_ISSUER"),
            log_key=get("STELA_LOG_KEY"),
            log_checkpoint_seconds=float(get("STELA_LOG_CHECKPOINT_SECONDS") or 10),
        )


ENV_VARS = ("DATABASE_URL", "REDIS_URL", "STELA_HOST", "STELA_PORT", "STELA_DATA_DIR", "STELA_ADMIN_TOKEN",
            "STELA_SNAPSHOT_EVERY", "STELA_HEARTBEAT_SECONDS", "STELA_RATE_LIMIT", "STELA_PROJECTOR",
            "STELA_LOG_LEVEL", "STELA_DB_POOL_MAX", "STELA_PG_NOTIFY", "STELA_WORKERS", "STELA_SERVER", "STELA_ENV",
            "STELA_TRUSTED_PROXIES", "STELA_CORS_ORIGINS", "STELA_METRICS_PORT", "STELA_STREAM_RATE_LIMIT",
            "STELA_MAX_STREAMS_PER_CLIENT", "STELA_DB_COMMAND_TIMEOUT", "STELA_DRAIN_SECONDS",
            "STELA_SIGN_IN_FAILURES", "STELA_SIGN_IN_WINDOW_SECONDS", "STELA_BOTS", "STELA_PG_LOCK_TIMEOUT_MS",
            "STELA_PUBLIC_URL", "STELA_OAUTH_ISSUER", "STELA_LOG_KEY", "STELA_LOG_CHECKPOINT_SECONDS",
            "STELA_RATE_LIMIT_WINDOW_SECONDS", "STELA_ARGON2_TIME_COST", "STELA_ARGON2_MEMORY_KIB",
            "STELA_ARGON2_PARALLELISM")
