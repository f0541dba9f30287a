-- The personal stream lists a player's games on connect: the seats they took, found by player id.
-- (Built inside the migration's transaction: on a large existing log, create it CONCURRENTLY by hand first.)
CREATE INDEX IF NOT EXISTS events_seat_taken_by_player ON events ((data->>'player_id'))
    WHERE type = 'table.SeatTaken';
