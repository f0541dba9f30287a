"""What a player's own move in a competition answers: the check, shared by the tournament's entries and the
arena's moves, that the answer is about that player alone and does not grow with the field."""

from __future__ import annotations

from typing import Any

import msgspec


async def assert_entries_do_not_grow(client: Any, path: str, entrants: list[dict[str, Any]]) -> None:
    """Three `entrants` (testkit.api.player's) each POST `{}` to `path` in turn. The third answer names neither
    of the others, and its size is the first's up to what is the third player's own (id and name) and the two
    counters (`players`, `version`): an answer carrying the field (the competition's view) fails both."""
    answers = []
    for p in entrants:
        r = await client.post(path, headers=p["headers"], json={})
        assert r.status_code == 200, r.text
        answers.append(r.content)
    first, third = answers[0], answers[2]
    assert entrants[0]["id"].encode() not in third and entrants[1]["id"].encode() not in third

    def rest(body: bytes) -> int:
        entry = msgspec.json.decode(body)
        own = (entry["player_id"], entry["name"], str(entry["players"]), str(entry["version"]))
        return len(body) - sum(len(x.encode()) for x in own)

    assert rest(third) == rest(first), (first, third)
