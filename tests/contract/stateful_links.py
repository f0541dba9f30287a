"""OpenAPI links between create, join, start, legal and commands, added to the served document for
schemathesis's stateful phase (the published document has none; see test_stateful.py).

Each link passes the game's id on (`$response.body#/id` from a game resource, the request's own
`game_id` after legal or a command); the link from legal to a command also passes the first legal
command and the version it was offered at as the body, so a scenario can play real moves. No link leads to
a command with a generated body (from create, start or a command), nor to legal before the game has started
(no legal command, so the link's body is empty and a generated command is sent): those were refused (409 the
game is open, 422 a command of another kind) and took the steps a scenario needs to play; the stateless
phase (test_schemathesis.py) sends the generated commands.
"""

from __future__ import annotations

import copy
from typing import Any

FROM_GAME = {"game_id": "$response.body#/id"}
SAME_GAME = {"game_id": "$request.path.game_id"}
# (operation, status) -> {link name: (target operation, parameters, request body or None)}
LINKS: dict[tuple[str, str], dict[str, tuple[str, dict[str, str], Any]]] = {
    ("createGame", "201"): {"Join": ("joinGame", FROM_GAME, None), "Start": ("startGame", FROM_GAME, None),
                           "Read": ("getGame", FROM_GAME, None)},
    ("joinGame", "200"): {"Start": ("startGame", FROM_GAME, None), "JoinToo": ("joinGame", FROM_GAME, None),
                         "Leave": ("leaveGame", FROM_GAME, None)},
    ("startGame", "200"): {"Legal": ("getLegalCommands", FROM_GAME, None), "Events": ("getEvents", FROM_GAME, None)},
    ("getLegalCommands", "200"): {
        "Play": ("sendCommand", SAME_GAME, {"command": "$response.body#/commands/0",
                                            "expected_version": "$response.body#/version"}),
        "PlayUnpinned": ("sendCommand", SAME_GAME, {"command": "$response.body#/commands/0"})},
    ("sendCommand", "200"): {"Legal": ("getLegalCommands", SAME_GAME, None), "Read": ("getGame", SAME_GAME, None)},
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
                # the body replaces the generated one: schemathesis merges a link's body into the generated
                # body by default, and a generated command of another type left its own fields beside the
                # legal command's (422, unknown field: no command was ever accepted)
                link["requestBody"] = body
                link["x-schemathesis"] = {"merge_body": False}
            response.setdefault("links", {})[name] = link
    return linked
