"""The event-stream parser (WHATWG interpretation): comments, multi-line data, ids, retry, line ends."""

from __future__ import annotations

from stela_client import Message, SseParser


def test_the_parser_skips_comments_joins_data_lines_and_keeps_the_last_id():
    parser = SseParser()
    stream = (": heartbeat\n\nretry: 2000\nid: 7\nevent: snapshot\ndata: {\"a\":\ndata:  1}\n\n"
              "data: no id here\n\nid: 8\nevent: tally.Added\ndata: x\r\n\r\nid: 9\n\n")
    got = [m for chunk in (stream[:13], stream[13:40], stream[40:]) for m in parser.feed(chunk)]
    assert got == [Message("snapshot", '{"a":\n 1}', "7"), Message("message", "no id here", "7"),
                   Message("tally.Added", "x", "8")]
    assert parser.comments == ["heartbeat"] and parser.retry_ms == 2000
    assert parser.last_id == "9"  # an id without data dispatches nothing but still counts


def test_the_parser_handles_a_crlf_split_across_chunks_and_bare_cr():
    parser = SseParser()
    got = list(parser.feed("data: one\r")) + list(parser.feed("\n\r\ndata: two\r\r"))
    assert [m.data for m in got] == ["one", "two"]


def test_an_id_with_nul_is_ignored_and_a_restart_forgets_half_a_message():
    parser = SseParser()
    assert list(parser.feed("id: 3\ndata: a\n\nid: 4\0x\ndata: half")) == [Message("message", "a", "3")]
    parser.restart()
    assert list(parser.feed("data: b\n\n")) == [Message("message", "b", "3")]
