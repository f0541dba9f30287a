-- Which tournament and round each game belongs to, written with the round's pairing (service/store/bulk.py).
-- It was created at startup by `CREATE TABLE IF NOT EXISTS`, which two replicas starting together on a new
-- database can race (a unique violation in pg_type); migrations run under the migration lock.
CREATE TABLE IF NOT EXISTS tournament_games (
    game_id text PRIMARY KEY, tournament_id text NOT NULL, round integer NOT NULL);
