-- A count that grows in the transaction of every change that can stop a token working but its expiry:
-- a player's first token rotated, revoked or its player deleted, a credential revoked, re-dated or
-- deleted (triggers, so no path, SQL by hand included, can leave it behind). Stream revocation
-- (service.live.revocation) reads it twice a second and asks about every watched token again only when
-- it moved or a watched token's expiry has passed: a replica with thousands of open streams no longer
-- looks all of their tokens up twice a second.
CREATE TABLE IF NOT EXISTS token_changes (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    n   bigint  NOT NULL
);
INSERT INTO token_changes (one, n) VALUES (true, 0) ON CONFLICT (one) DO NOTHING;

CREATE OR REPLACE FUNCTION token_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE token_changes SET n = n + 1;
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS players_token_changed ON players;
CREATE TRIGGER players_token_changed AFTER UPDATE OF token_hash OR DELETE ON players
    FOR EACH STATEMENT EXECUTE FUNCTION token_changed();
DROP TRIGGER IF EXISTS players_truncated ON players;
CREATE TRIGGER players_truncated AFTER TRUNCATE ON players
    FOR EACH STATEMENT EXECUTE FUNCTION token_changed();
DROP TRIGGER IF EXISTS credentials_changed ON credentials;
CREATE TRIGGER credentials_changed AFTER UPDATE OF digest, revoked_at, expires_at OR DELETE ON credentials
    FOR EACH STATEMENT EXECUTE FUNCTION token_changed();
DROP TRIGGER IF EXISTS credentials_truncated ON credentials;
CREATE TRIGGER credentials_truncated AFTER TRUNCATE ON credentials
    FOR EACH STATEMENT EXECUTE FUNCTION token_changed();
