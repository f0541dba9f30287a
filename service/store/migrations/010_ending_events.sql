-- The result runners (tournaments' and arenas') read only the games' endings past their checkpoints
-- (`projections.log.read_types`): in (tx, position) order, by this index, not through every clock event.
-- (Built inside the migration's transaction, which holds appends back meanwhile: on a large existing log,
-- create it CONCURRENTLY by hand first.)
CREATE INDEX IF NOT EXISTS events_endings_tx ON events (tx, position)
    WHERE type IN ('table.GameEnded', 'table.GameAborted');
