"""Commands and queries: the one command loop and repository for every aggregate (`loop`,
`repository`), games on it (`pipeline`), tournaments and arenas on it (`tournaments`, `arenas`: each
a `competition`), players, the one visibility rule, game views, the audit (`verify`), and the
read-model query side.

Nothing here knows HTTP. It may import `service.store` and `service.ops`.
"""
