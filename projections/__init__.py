"""Read models fed from the global event log.

Each read model is one module exposing a `Projection` (its tables' DDL and a
batch `apply`); `runner.Projector` feeds them from per-projection checkpoints,
`rebuild` replays the log into a shadow schema and swaps it in, and
`queries.ReadModels` is the query side. Projections work on event types, data
and metadata only; they never decode a game's own events, so a projector needs
no game rules.
"""
