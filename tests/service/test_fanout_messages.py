"""The fan-out's Redis messages: a process skips its own by their first bytes, decodes another's only
when something here follows that game, and still reads the previous release's messages."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec

from service.fanout import PREFIX, RedisBroker, Tagged, message
from service.store.protocol import StoredEvent


def events(stream_id: str, n: int = 2) -> list[StoredEvent]:
    return [StoredEvent(position=i, tx=7, stream_id=stream_id, version=i, type="tally.Added", data={"n": i},
                        metadata={}, at=datetime(2026, 1, 1, tzinfo=UTC), prev_hash="p", hash=f"h{i}")
            for i in range(1, n + 1)]


def broker() -> tuple[RedisBroker, list[str], list[tuple[str, list[StoredEvent]]]]:
    found = RedisBroker("redis://127.0.0.1:1/0")  # never started: `_received` is fed by hand
    woken: list[str] = []
    batches: list[tuple[str, list[StoredEvent]]] = []
    found.on_append.append(woken.append)
    found.on_batch.append(lambda game_id, got: batches.append((game_id, got)))
    return found, woken, batches


def test_a_message_is_the_events_json_with_the_sender_first():
    sent = events("g1")
    payload = message("abc123", sent)
    assert payload.startswith(b'[{"origin":"abc123",')
    decoded = msgspec.json.decode(payload, type=list[Tagged])
    assert decoded[0].origin == "abc123" and [StoredEvent(**{k: getattr(e, k) for k in StoredEvent.__struct_fields__})
                                               for e in decoded] == sent


def test_a_process_skips_its_own_messages_without_waking_anything():
    here, woken, batches = broker()
    here.batch_wanted.append(lambda _: True)
    here._received((PREFIX + "g1").encode(), message(here.origin, events("g1")))
    assert woken == [] and batches == []


def test_another_process_message_wakes_projectors_but_is_decoded_only_when_followed():
    here, woken, batches = broker()
    wanted: set[str] = set()
    here.batch_wanted.append(lambda game_id: game_id in wanted)
    here._received((PREFIX + "g1").encode(), message("elsewhere", events("g1")))
    here._received((PREFIX + "g2").encode(), b"not json at all")  # never decoded: nobody follows g2
    assert woken == ["g1", "g2"] and batches == []
    wanted.add("g1")
    here._received((PREFIX + "g1").encode(), message("elsewhere", events("g1")))
    assert [(game_id, [e.version for e in got]) for game_id, got in batches] == [("g1", [1, 2])]


def test_a_message_of_the_previous_release_is_still_read():
    """It named its sender in the first event's last field."""
    here, _, batches = broker()
    here.batch_wanted.append(lambda _: True)
    first, second = events("g1")
    old = msgspec.json.encode([Tagged(**msgspec.structs.asdict(first), origin="older"), second])
    here._received((PREFIX + "g1").encode(), old)
    assert [e.version for e in batches[0][1]] == [1, 2]
    own_old = msgspec.json.encode([Tagged(**msgspec.structs.asdict(first), origin=here.origin), second])
    here._received((PREFIX + "g1").encode(), own_old)
    assert len(batches) == 1
