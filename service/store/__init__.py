"""Event storage: one protocol, an in-memory and a PostgreSQL implementation."""
