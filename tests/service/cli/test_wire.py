"""`stela serve`'s HTTP protocol (service.cli.wire): a response's head and body leave in one write, in order,
and nothing written before a close is lost."""

from __future__ import annotations

import asyncio

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from service.cli.wire import CoalescingTransport, HttpProtocol


class FakeTransport(asyncio.Transport):
    """Records each `write` the protocol makes (one per system call on a real socket)."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.closed = True

    def get_extra_info(self, name: str, default: object = None) -> object:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def get_write_buffer_size(self) -> int:
        return 0

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def answer(scope, receive, send) -> None:
    await receive()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"11")]})
    await send({"type": "http.response.body", "body": b'{"ok":true}'})


async def served(protocol_class: type[HttpToolsProtocol], requests: bytes) -> FakeTransport:
    """`requests` fed to a protocol of `protocol_class` serving `answer`; the transport once all are answered."""
    config = Config(app=answer, lifespan="off", http="httptools", log_config=None)
    config.load()
    protocol = protocol_class(config=config, server_state=ServerState(), app_state={})
    transport = FakeTransport()
    protocol.connection_made(transport)
    protocol.data_received(requests)
    deadline = asyncio.get_running_loop().time() + 30
    while requests.count(b"GET ") != b"".join(transport.writes).count(b"HTTP/1.1 200"):
        assert asyncio.get_running_loop().time() < deadline, transport.writes
        await asyncio.sleep(0.01)
    await asyncio.sleep(0)  # the turn that flushes
    protocol.connection_lost(None)
    return transport


REQUEST = b"GET /x HTTP/1.1\r\nhost: t\r\n\r\n"


async def test_a_response_leaves_in_one_write():
    plain = await served(HttpToolsProtocol, REQUEST)
    assert len(plain.writes) == 2  # uvicorn's own protocol: the head, then the body
    ours = await served(HttpProtocol, REQUEST)
    assert ours.writes == [b"".join(plain.writes)]
    assert ours.writes[0].startswith(b"HTTP/1.1 200 OK\r\n") and ours.writes[0].endswith(b'\r\n\r\n{"ok":true}')


async def test_pipelined_responses_keep_their_order():
    ours = await served(HttpProtocol, REQUEST * 3)
    assert b"".join(ours.writes).count(b'\r\n\r\n{"ok":true}') == 3
    assert all(w.count(b"HTTP/1.1 200") == w.count(b'{"ok":true}') for w in ours.writes)  # never a head alone


async def test_writes_of_one_turn_are_joined_and_a_close_sends_them_first():
    loop = asyncio.get_running_loop()
    real = FakeTransport()
    transport = CoalescingTransport(real, loop)
    transport.write(b"a")
    transport.writelines([b"b", b"", b"c"])
    assert real.writes == [] and transport.get_write_buffer_size() == 3
    await asyncio.sleep(0)
    assert real.writes == [b"abc"]
    transport.write(b"d")
    transport.close()
    assert real.writes == [b"abc", b"d"] and real.closed
    await asyncio.sleep(0)
    assert real.writes == [b"abc", b"d"]  # the scheduled flush finds nothing left


async def test_an_abort_or_a_closed_connection_drops_what_is_kept():
    loop = asyncio.get_running_loop()
    real = FakeTransport()
    transport = CoalescingTransport(real, loop)
    transport.write(b"lost")
    transport.abort()
    await asyncio.sleep(0)
    assert real.writes == [] and real.closed
    real = FakeTransport()
    transport = CoalescingTransport(real, loop)
    transport.write(b"late")
    real.closed = True  # the peer went away before the turn ended
    await asyncio.sleep(0)
    assert real.writes == []
    assert transport.get_extra_info("peername") == ("127.0.0.1", 50000)  # the rest is the real transport's
