"""Bearer-token authentication: who is calling (a player, an admin, or nobody)."""

from __future__ import annotations

import hmac

from litestar import Request

from service.errors import Problem
from service.handling import Viewer


async def provide_viewer(request: Request) -> Viewer:
    """The caller from `Authorization: Bearer <token>`; anonymous without the header, 401 if it is wrong."""
    header = request.headers.get("authorization")
    if not header:
        return Viewer()
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Problem(401, "unauthorized", "use `Authorization: Bearer <token>`")
    state = request.app.state
    admin = state.settings.admin_token
    if admin and hmac.compare_digest(token.encode(), admin.encode()):
        return Viewer(admin=True)
    player = await state.service.authenticate(token)
    if player is None:
        raise Problem(401, "unauthorized", "unknown or revoked token")
    request.scope.setdefault("state", {})["player_id"] = player.id
    return Viewer(player=player)
