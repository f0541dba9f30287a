"""The event store: its protocol, the PostgreSQL and in-memory implementations, bulk writes,
the SQL migrations and the embedded PostgreSQL cluster.

The only place that touches an asyncpg pool or connection. It may import `service.ops` (and
`domain`, `projections`), nothing else of the service.
"""
