import assert from "node:assert/strict";
import { test } from "node:test";
import { SseParser } from "../../src/sse.js";

test("the parser joins data lines, keeps the last id, skips comments and reads retry", () => {
  const parser = new SseParser();
  const out = parser.feed("retry: 2000\n: heartbeat\nid: 7\nevent: snapshot\ndata: {\"a\":\ndata: 1}\n\n");
  assert.deepEqual(out, [{ event: "snapshot", data: "{\"a\":\n1}", id: "7" }]);
  assert.equal(parser.retryMs, 2000);
  assert.deepEqual(parser.feed("data: x\n\n"), [{ event: "message", data: "x", id: "7" }], "the id persists");
});

test("messages split across chunks, and CRLF split between chunks, are read once", () => {
  const parser = new SseParser();
  const text = "id: 1\r\ndata: one\r\n\r\nid: 2\r\ndata: two\r\n\r\n";
  const out = [];
  for (let i = 0; i < text.length; i += 3) out.push(...parser.feed(text.slice(i, i + 3)));
  assert.deepEqual(out.map((m) => [m.id, m.data]), [["1", "one"], ["2", "two"]]);
  const crlf = new SseParser();
  assert.deepEqual(crlf.feed("data: a\r"), []);
  assert.deepEqual(crlf.feed("\n\r\n").map((m) => m.data), ["a"]);
});

test("a block without data dispatches nothing, and an id with NUL is ignored", () => {
  const parser = new SseParser("5");
  assert.deepEqual(parser.feed("id: 6\n\n"), []);
  assert.deepEqual(parser.feed("id: x\0y\ndata: d\n\n"), [{ event: "message", data: "d", id: "6" }]);
});
