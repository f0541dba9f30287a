-- A player may revoke its token (NULL: no token works) or rotate it (a new digest).
ALTER TABLE players ALTER COLUMN token_hash DROP NOT NULL;
