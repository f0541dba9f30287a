"""The request bodies the README's API tour sends (`curl ... -XPOST localhost:8000/v1/... -d '<json>'`), each
with the document's path template it goes to, for the generated-client tests to type-check or validate."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[2]
_CURL = re.compile(r"curl\b[^\n]*?-X(?P<method>POST|PUT|PATCH)\s+\"?localhost:8000(?P<path>/v1/[^\s\"?]*)"
                   r"(?P<rest>.*?)-d\s+'(?P<body>[^']*)'", re.S)


def _template(path: str, templates: list[str]) -> str:
    for template in templates:
        pattern = "^" + re.sub(r"\\\{[^}]+\\\}", r"[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path):
            return template
    raise AssertionError(f"the README sends a body to {path}, which the document does not have")


def readme_bodies(document: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """(method, path template, body) of every literal JSON body in the README, in order."""
    text = (ROOT / "README.md").read_text().replace("\\\n", " ")
    templates = sorted(document["paths"], key=lambda t: t.count("{"))
    found = []
    for match in _CURL.finditer(text):
        if "\n" in match.group("rest"):
            continue  # the -d belongs to another command
        found.append((match.group("method").lower(), _template(match.group("path"), templates),
                      json.loads(match.group("body"))))
    assert found, "the README's tour sends no body"
    return found
