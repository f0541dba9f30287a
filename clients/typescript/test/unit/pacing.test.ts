// Pacing on scripted servers that keep a real budget: an answer without RateLimit fields does not
// bring back the last ones seen (the count goes on down), and a token's requests are not paced by the
// anonymous budget its registration was answered from.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { StelaClient } from "../../src/index.js";
import { fakeServer, json, problem, type Handler } from "./fake.js";

/** A scripted server closed when test `t` ends. */
async function serve(t: TestContext, handler: Handler) {
  const server = await fakeServer(handler);
  t.after(() => server.close());
  return server;
}

/** `quota` requests per `windowMs` window (starting at a window's first request), all counted; `bare(index)`
 *  answers leave the fields out, as a route or server that does not send them. */
function budgeted(quota: number, windowMs: number, bare: (index: number) => boolean): Handler {
  let endsAt = 0;
  let spent = 0;
  return (req, res, index) => {
    const now = Date.now();
    if (now >= endsAt) [endsAt, spent] = [now + windowMs, 0];
    const t = Math.ceil((endsAt - now) / 1000);
    const policy = { "RateLimit-Policy": `"api";q=${quota};w=${windowMs / 1000}` };
    if (spent >= quota) {
      return problem(res, 429, "rate_limited", {}, { ...policy, RateLimit: `"api";r=0;t=${t}`, "Retry-After": `${t}` });
    }
    spent += 1;
    const fields = { ...policy, RateLimit: `"api";r=${quota - spent};t=${t}` };
    json(res, 200, { id: "p1", name: "Ann" }, bare(index) ? {} : fields);
  };
}

test("after an answer without RateLimit fields the pacer counts down from what it knew, and waits instead of 429",
     async (t) => {
  const server = await serve(t, budgeted(3, 2000, (index) => index === 1 || index === 2));
  const paced = new StelaClient({ baseUrl: server.url, token: "tok", pace: true, retry: { maxAttempts: 1 } });
  await paced.me();  // r=2
  assert.equal(paced.http.pacer!.remaining, 2);
  await paced.me();  // no fields: spent one all the same
  assert.equal(paced.http.pacer!.remaining, 1, "the request without fields is counted, not told r=2 again");
  assert.equal(paced.rateLimit?.remaining, 2, "client.rateLimit keeps the last fields an answer carried");
  await paced.me();  // no fields: the budget is spent
  assert.equal(paced.http.pacer!.remaining, 0);
  await paced.me();  // waits for the window instead of meeting 429 (maxAttempts 1 would throw it)
  assert.ok(paced.http.pacer!.waitedMs > 0, "the fourth request waited for the window");
  assert.equal(server.seen.length, 4, "no 429 and no retry");
});

test("a paced client's token starts its own count: the registration's anonymous budget does not pace the player",
     async (t) => {
  const server = await serve(t, (req, res) => {
    if (req.method === "POST") {  // the address's anonymous budget is spent; the new player's is whole
      return json(res, 201, { id: "p1", name: "Ann", token: "t1" },
                  { RateLimit: '"api";r=0;t=3', "RateLimit-Policy": '"api";q=600;w=60' });
    }
    assert.equal(req.headers.authorization, "Bearer t1");
    json(res, 200, { id: "p1", name: "Ann" },
         { RateLimit: '"api";r=599;t=60', "RateLimit-Policy": '"api";q=600;w=60' });
  });
  const { client } = await StelaClient.register(server.url, "Ann", { pace: true });
  await client.me();
  assert.equal(client.http.pacer!.waitedMs, 0, "the player's first request is not held for the address's window");
  assert.equal(client.http.pacer!.remaining, 599, "the count is the player's");
  // anonymous again: the address's budget is not known from the player's
  assert.equal(client.http.pacer!.before(), 0);
  assert.equal(client.http.pacer!.remaining, undefined);
});
