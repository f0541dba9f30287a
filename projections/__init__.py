"""Read models fed from the global event log.

Each read model is one module holding its tables' DDL, its batch `apply` and
the queries over its tables (games, history, ratings, stats); `runner.Projector`
feeds them from per-projection checkpoints, `rebuild` replays the log into a
shadow schema and swaps it in, and `queries.ReadModels` binds the queries to a
pool. Platform events (`table.*`) reach the models decoded into the structs of
`domain.table` (`log.LogEvent.table`); a game's own events are never decoded,
so a projector needs no game rules.
"""
