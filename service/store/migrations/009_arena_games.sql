-- Which arena each game belongs to (service/commands/arenas.py). An arena's pairing creates its games in
-- its own append, through the same bulk write as a tournament round (service/store/bulk.py), which links
-- each game to its owner: a tournament's in `tournament_games`, an arena's here (`NewGame.link`), so the
-- tournament result runner and the sealed-deal rule never see an arena's games.
CREATE TABLE IF NOT EXISTS arena_games (
    game_id text PRIMARY KEY, arena_id text NOT NULL, number integer NOT NULL);
