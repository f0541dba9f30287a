"""The HTTP edge: the Litestar app (`create_app`), its lifespan, routes, the error table,
schemas, docs, rate limits, middleware, dependencies, the typed contract and OpenAPI rendering.

It may import every package below it and `service.web`; of them, only the app factory (`service.edge.app`)
imports the composition root, `service.container`: the routes receive the collaborators they name
(`service.edge.dependencies`, `service.edge.desks`), never the root's object.
"""
