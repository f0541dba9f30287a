-- The transparency log (docs/audit.md). `log_entries` gets one row per leaf in the same transaction as
-- the event it records (a creation, an end, a revealed seed): the leaf's bytes and RFC 9162 leaf hash,
-- with the transaction id, so the sequencer reads them in (tx, position) order below the same horizon
-- as every reader of the global log (projections/log.py) and gives each the next leaf index in
-- `log_leaves`: an entry's place in the tree is fixed the moment it commits. `log_nodes` keeps the
-- perfect subtrees' hashes (level 0: the leaves), so a root or a proof is O(log n) rows. Checkpoints are
-- the signed notes of tree heads; witnesses' cosignatures are kept beside them.
CREATE TABLE IF NOT EXISTS log_entries (
    position   bigserial PRIMARY KEY,
    tx         bigint    NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
    stream_id  text      NOT NULL,
    version    integer   NOT NULL,
    body       bytea     NOT NULL,
    leaf_hash  bytea     NOT NULL,
    UNIQUE (stream_id, version)
);
CREATE INDEX IF NOT EXISTS log_entries_tx_position ON log_entries (tx, position);

CREATE TABLE IF NOT EXISTS log_leaves (
    leaf_index  bigint PRIMARY KEY,
    entry       bigint NOT NULL UNIQUE REFERENCES log_entries (position)
);

CREATE TABLE IF NOT EXISTS log_nodes (
    level  smallint NOT NULL,
    idx    bigint   NOT NULL,
    hash   bytea    NOT NULL,
    PRIMARY KEY (level, idx)
);

CREATE TABLE IF NOT EXISTS log_checkpoints (
    size  bigint      PRIMARY KEY,
    root  bytea       NOT NULL,
    note  text        NOT NULL,
    at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS log_cosignatures (
    size     bigint      NOT NULL REFERENCES log_checkpoints (size),
    witness  text        NOT NULL,
    line     text        NOT NULL,
    at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (size, witness)
);

-- Append-only: nothing written to the log is ever changed or removed.
CREATE OR REPLACE FUNCTION stela_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the transparency log is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END $$;

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['log_entries', 'log_leaves', 'log_nodes', 'log_checkpoints', 'log_cosignatures'] LOOP
        EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', t || '_append_only', t);
        EXECUTE format('CREATE TRIGGER %I BEFORE UPDATE OR DELETE ON %I FOR EACH ROW '
                       'EXECUTE FUNCTION stela_log_append_only()', t || '_append_only', t);
        EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', t || '_no_truncate', t);
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT '
                       'EXECUTE FUNCTION stela_log_append_only()', t || '_no_truncate', t);
    END LOOP;
END $$;
