-- Accounts, scoped credentials and OAuth apps (docs/accounts.md).
-- A player may set a password: its name becomes its sign-in login (unique, case-folded).
CREATE TABLE IF NOT EXISTS accounts (
    player_id     text        PRIMARY KEY REFERENCES players (id),
    login         text        NOT NULL UNIQUE,
    password_hash text        NOT NULL,
    updated_at    timestamptz NOT NULL DEFAULT now()
);

-- Every bearer token but a player's first (players.token_hash): sign-in sessions, personal access
-- tokens and OAuth access tokens, each with its scopes, stored as the SHA-256 of the token.
CREATE TABLE IF NOT EXISTS credentials (
    id                 text        PRIMARY KEY,
    digest             text        NOT NULL UNIQUE,
    player_id          text        NOT NULL REFERENCES players (id),
    kind               text        NOT NULL CHECK (kind IN ('session', 'personal', 'oauth')),
    name               text        NOT NULL,
    scopes             text[]      NOT NULL,
    client_id          text,
    grant_digest       text,       -- the authorization code it was issued for (a replayed code revokes it)
    refresh_digest     text        UNIQUE,
    created_at         timestamptz NOT NULL DEFAULT now(),
    expires_at         timestamptz,
    refresh_expires_at timestamptz,
    revoked_at         timestamptz
);
CREATE INDEX IF NOT EXISTS credentials_player ON credentials (player_id) WHERE revoked_at IS NULL;

CREATE TABLE IF NOT EXISTS oauth_clients (
    client_id     text        PRIMARY KEY,
    name          text        NOT NULL,
    redirect_uris text[]      NOT NULL,
    scopes        text[]      NOT NULL,
    owner_id      text        NOT NULL REFERENCES players (id),
    created_at    timestamptz NOT NULL DEFAULT now()
);

-- Authorization codes: single use (used_at), short-lived, bound to client, redirect URI and PKCE challenge.
CREATE TABLE IF NOT EXISTS oauth_codes (
    digest         text        PRIMARY KEY,
    client_id      text        NOT NULL,
    player_id      text        NOT NULL,
    redirect_uri   text        NOT NULL,
    scope          text        NOT NULL,
    challenge      text        NOT NULL,
    method         text        NOT NULL,
    expires_at     timestamptz NOT NULL,
    used_at        timestamptz
);

-- Failed sign-ins per key (a login, or an address) in the current window, shared by every replica.
CREATE TABLE IF NOT EXISTS sign_in_failures (
    key          text        PRIMARY KEY,
    window_start timestamptz NOT NULL,
    failures     integer     NOT NULL
);

-- Bots on request: a bot is a player the platform plays, in one game or one tournament. A bot worker holds
-- a lease on it (`lease_owner` until `lease_until`); `token_id` is the credential the worker acts with,
-- replaced (and the old one revoked) whenever another worker takes the bot over.
CREATE TABLE IF NOT EXISTS bots (
    id            text        PRIMARY KEY,
    player_id     text        NOT NULL REFERENCES players (id),
    game_id       text,
    tournament_id text,
    strategy      text        NOT NULL,
    strength      integer     NOT NULL,
    token_id      text,
    lease_owner   text,
    lease_until   timestamptz,
    done_at       timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS bots_live ON bots (created_at) WHERE done_at IS NULL;
