-- A bot the organiser of an arena entered plays every game the arena pairs it into (service.commands.accounts_bots):
-- its arena, beside a game's and a tournament's bots.
ALTER TABLE bots ADD COLUMN IF NOT EXISTS arena_id text;
