"""The Stela web service, in sub-packages by job, each importing only itself and those below it:

    ops        settings, logging, metrics, stopping, background
    store      the event store (PostgreSQL, memory, bulk, migrations, embedded PostgreSQL)
    commands   pipeline, repository, players, visibility, views, verify, tournaments, read-model queries
    live       fan-out, followers, game / personal / tournament streams, tickets
    workers    timeouts, tournament results, the embedded projector
    container  the composition root (a module): builds every collaborator for the app and the CLI
    edge       the HTTP app, routes, errors, schemas, middleware
    bots       API clients (import only `service.bots` and `service.ops`)
    cli        the `stela` command line

`web` (the reference client) imports no other service package.
"""
