"""Every operation of the OpenAPI document has a method on both clients (`OPERATIONS`, filled by the `op`
and `covers` declarations), and every declared operation is one of the document's."""

from __future__ import annotations

import json
from pathlib import Path

from stela_client import OPERATIONS, Client, SyncClient

DOC = json.loads((Path(__file__).resolve().parents[3] / "openapi" / "openapi.json").read_text())
METHODS = ("get", "post", "put", "patch", "delete")
LEFT_OUT: dict[str, str] = {}  # operationId -> why no SDK method performs it (none today)


def operations() -> dict[str, str]:
    return {op["operationId"]: f"{method.upper()} {path}" for path, item in DOC["paths"].items()
            for method, op in item.items() if method in METHODS}


def test_every_operation_of_the_document_has_a_method_on_both_clients():
    missing = {op: where for op, where in operations().items() if op not in OPERATIONS and op not in LEFT_OUT}
    assert not missing, f"operations without an SDK method: {missing}"
    clients = (Client("http://127.0.0.1:9"), SyncClient("http://127.0.0.1:9"))
    for op, names in OPERATIONS.items():
        for name in names:
            assert all(callable(getattr(client, name)) for client in clients), (op, name)
    clients[1].close()


def test_every_declared_operation_is_in_the_document():
    assert set(OPERATIONS) <= set(operations()), set(OPERATIONS) - set(operations())
    assert not set(LEFT_OUT) & set(OPERATIONS)
