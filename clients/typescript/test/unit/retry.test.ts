import assert from "node:assert/strict";
import { test } from "node:test";
import { backoffMs, DEFAULT_RETRY, parseRetryAfter } from "../../src/retry.js";

test("Retry-After is read as seconds or as an HTTP date", () => {
  assert.equal(parseRetryAfter("3"), 3000);
  assert.equal(parseRetryAfter("0"), 0);
  const now = Date.parse("2026-11-27T04:00:00Z");
  assert.equal(parseRetryAfter("Fri, 27 Nov 2026 04:00:05 GMT", now), 5000);
  assert.equal(parseRetryAfter("Fri, 27 Nov 2026 03:59:00 GMT", now), 0, "a date in the past means now");
  assert.equal(parseRetryAfter(null), undefined);
  assert.equal(parseRetryAfter("soon"), undefined);
});

test("the back-off doubles up to its ceiling and is jittered below it", () => {
  const top = () => 0.999999;
  assert.equal(backoffMs(0, DEFAULT_RETRY, top), 250);
  assert.equal(backoffMs(3, DEFAULT_RETRY, top), 2000);
  assert.equal(backoffMs(30, DEFAULT_RETRY, top), DEFAULT_RETRY.maxDelayMs);
  assert.equal(backoffMs(3, DEFAULT_RETRY, () => 0), 0);
});
