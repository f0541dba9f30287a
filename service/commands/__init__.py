"""Commands and queries: the pipeline, the game repository, players, the one visibility rule,
game views, the audit (`verify`), tournaments, and the read-model query side.

Nothing here knows HTTP. It may import `service.store` and `service.ops`.
"""
