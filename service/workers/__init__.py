"""Background workers: the timeout worker, the tournament result runner and the embedded projector.

The composition root starts and stops them. They may import `service.live`, `service.commands`,
`service.store` and `service.ops`.
"""
