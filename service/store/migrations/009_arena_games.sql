-- Which arena each game belongs to (service/commands/arenas.py). An arena's pairing creates its games in
-- its own append, through the same bulk write as a tournament round (service/store/bulk.py), which links
-- every game it writes in `tournament_games`. An arena's games are no tournament's: the tournament result
-- runner and the sealed-deal rule must never see them. So the link of a game whose owner is an arena
-- stream ('arena-<uuid>') is diverted here, in the same transaction, and `tournament_games` never holds it.
CREATE TABLE IF NOT EXISTS arena_games (
    game_id text PRIMARY KEY, arena_id text NOT NULL, number integer NOT NULL);

CREATE OR REPLACE FUNCTION arena_games_divert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.tournament_id LIKE 'arena-%' THEN
        INSERT INTO arena_games (game_id, arena_id, number)
            VALUES (NEW.game_id, substr(NEW.tournament_id, 7), NEW.round);
        RETURN NULL;
    END IF;
    RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS arena_games_divert ON tournament_games;
CREATE TRIGGER arena_games_divert BEFORE INSERT ON tournament_games
    FOR EACH ROW EXECUTE FUNCTION arena_games_divert();
