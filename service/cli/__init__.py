"""The `stela` command line (`service.cli.main:main`): serve, simulate, export, verify, openapi,
the projector and projection commands, and the HTTP server `stela serve` runs.

The top of the service: it may import every other package of it.
"""
