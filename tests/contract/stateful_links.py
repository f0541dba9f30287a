"""OpenAPI links between create, join, start, legal and commands, added to the served document for
schemathesis's stateful phase (the published document has none; see test_stateful.py).

Each link passes the game's id on (`$response.body#/id` from a game resource, the request's own
`game_id` after legal or a command); the link from legal to a command also passes the first legal
command and the version it was offered at as the body, so a scenario can play real moves.
"""

from __future__ import annotations

import copy
from typing import Any

FROM_GAME = {"game_id": "$response.body#/id"}
SAME_GAME = {"game_id": "$request.path.game_id"}
# (operation, status) -> {link name: (target operation, parameters, request body or None)}
LINKS: dict[tuple[str, str], dict[str, tuple[str, dict[str, str], Any]]] = {
    ("createGame", "201"): {"Join": ("joinGame", FROM_GAME, None), "Start": ("startGame", FROM_GAME, None),
                           "Read": ("getGame", FROM_GAME, None), "Legal": ("getLegalCommands", FROM_GAME, None),
                           "Command": ("sendCommand", FROM_GAME, None)},
    ("joinGame", "200"): {"Start": ("startGame", FROM_GAME, None), "JoinToo": ("joinGame", FROM_GAME, None),
                         "Leave": ("leaveGame", FROM_GAME, None)},
    ("startGame", "200"): {"Legal": ("getLegalCommands", FROM_GAME, None), "Command": ("sendCommand", FROM_GAME, None),
                          "Events": ("getEvents", FROM_GAME, None)},
    ("getLegalCommands", "200"): {
        "Play": ("sendCommand", SAME_GAME, {"command": "$response.body#/commands/0",
                                            "expected_version": "$response.body#/version"}),
        "PlayUnpinned": ("sendCommand", SAME_GAME, {"command": "$response.body#/commands/0"})},
    ("sendCommand", "200"): {"Legal": ("getLegalCommands", SAME_GAME, None),
                            "Again": ("sendCommand", SAME_GAME, None),
                            "Read": ("getGame", SAME_GAME, None)},
}


def operations(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {op["operationId"]: op for item in document["paths"].values() for op in item.values()
            if isinstance(op, dict) and "operationId" in op}


def with_links(document: dict[str, Any]) -> dict[str, Any]:
    """A copy of `document` with LINKS added to the named responses (which must all exist)."""
    linked = copy.deepcopy(document)
    ops = operations(linked)
    for (source, status), links in LINKS.items():
        response = ops[source]["responses"][status]
        for name, (target, parameters, body) in links.items():
            assert target in ops, target
            link: dict[str, Any] = {"operationId": target, "parameters": parameters}
            if body is not None:
                link["requestBody"] = body
            response.setdefault("links", {})[name] = link
    return linked
