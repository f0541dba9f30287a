"""The event store: its protocol, the PostgreSQL and in-memory implementations, bulk writes,
the SQL migrations and the embedded PostgreSQL cluster.

The only place of the service that touches an asyncpg pool or connection or imports the driver
(the projections it hands a pool or connection to aside; `errors` names the database's failures for
the rest): `database_handles` in tests/test_architecture.py fails otherwise. It may import
`service.ops` (and `domain`, `projections`), nothing else of the service.
"""
