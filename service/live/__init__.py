"""Live streams: the fan-out (in process or Redis), followers, the game, personal, tournament and
arena SSE streams (the last two on one loop, `aggregate_stream`), and stream tickets.

It may import `service.commands`, `service.store` and `service.ops`.
"""
