// The live run: every live file in one process, so they share one `stela serve` (harness.ts's `server`)
// and one Chromium, run one after another in this order. The log's file comes first: its key is in the
// server's environment from the first start. The rate limits' file restarts the server with a small budget,
// and again as it was. The Chromium file comes last: its second test restarts the server with 1 s tickets.
import "./log.test.js";
import "./tour.test.js";
import "./parity.test.js";
import "./node.test.js";
import "./multiplex.test.js";
import "./arena.test.js";
import "./ratelimit.test.js";
import "./browser.test.js";
