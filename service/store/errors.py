"""The database's failures named by what they mean to a caller, so that nothing outside `service.store`
imports the driver: the error table at the edge maps these classes like any other.

`REFUSED_INPUT`: PostgreSQL refused a value outright (such as a NUL in text); nothing was written.
`UNAVAILABLE`: the database cannot serve now: unreachable, out of resources, or it ended the
connection or cancelled the statement.
"""

from __future__ import annotations

import asyncpg

REFUSED_INPUT: type[Exception] = asyncpg.exceptions.DataError
UNAVAILABLE: tuple[type[Exception], ...] = (
    asyncpg.exceptions.PostgresConnectionError,
    asyncpg.exceptions.InterfaceError,
    asyncpg.exceptions.CannotConnectNowError,
    # no free connection slot on the server (SQLSTATE 53300) or other resources exhausted (class 53)
    asyncpg.exceptions.InsufficientResourcesError,
    # the server ended the connection or cancelled the statement (class 57: shutdown, terminate, timeout)
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.exceptions.InternalClientError,  # a pooled connection the server had already ended
)
