"""The HTTP edge: the Litestar app (`create_app`), its lifespan, routes, the error table,
schemas, docs, rate limits, middleware, dependencies, the typed contract and OpenAPI rendering.

It may import `service.container` and every package below it, and `service.web`.
"""
