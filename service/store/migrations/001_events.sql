-- The event store: one append-only table for every stream, ordered globally
-- by (tx, position) so that readers never skip an event committed late.
CREATE TABLE IF NOT EXISTS events (
    position     bigserial   PRIMARY KEY,
    tx           bigint      NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
    stream_id    text        NOT NULL,
    version      integer     NOT NULL CHECK (version >= 1),
    type         text        NOT NULL,
    data         jsonb       NOT NULL,
    metadata     jsonb       NOT NULL,
    at           timestamptz NOT NULL DEFAULT now(),
    prev_hash    text        NOT NULL,
    hash         text        NOT NULL,
    UNIQUE (stream_id, version)
);
CREATE INDEX IF NOT EXISTS events_tx_position ON events (tx, position);

CREATE TABLE IF NOT EXISTS idempotency (
    stream_id      text        NOT NULL,
    actor          text        NOT NULL,
    key            text        NOT NULL,
    first_version  integer     NOT NULL,
    last_version   integer     NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, actor, key)
);

CREATE TABLE IF NOT EXISTS snapshots (
    stream_id  text        PRIMARY KEY,
    version    integer     NOT NULL,
    format     text        NOT NULL,
    state      bytea       NOT NULL,
    saved_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS players (
    id          text        PRIMARY KEY,
    name        text        NOT NULL,
    token_hash  text        NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- One row per stream (written with its first event) so streams can be enumerated
-- (verify --all, projections) without scanning events.
CREATE TABLE IF NOT EXISTS streams (
    stream_id   text        PRIMARY KEY,
    kind        text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
