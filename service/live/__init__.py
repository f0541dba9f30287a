"""Live streams: the fan-out (in process or Redis), followers, the game, personal and tournament
SSE streams, and stream tickets.

It may import `service.commands`, `service.store` and `service.ops`.
"""
