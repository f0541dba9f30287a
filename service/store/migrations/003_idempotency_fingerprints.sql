-- An idempotency key remembers what it was used for (a digest of the request) and, when the
-- first attempt was refused, the refusal itself, which a resent key gets again.
ALTER TABLE idempotency ADD COLUMN IF NOT EXISTS fingerprint text;
ALTER TABLE idempotency ADD COLUMN IF NOT EXISTS refusal jsonb;
-- A create has no stream before it: its key ("create:<key>") is found by actor and key alone.
CREATE UNIQUE INDEX IF NOT EXISTS idempotency_creates ON idempotency (actor, key) WHERE key LIKE 'create:%';
