/* Verification in the browser: the export's hash chain and the seed against its commitment (SHA-256). */

const GENESIS = "0".repeat(64);

async function sha256Hex(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** JSON with object keys sorted at every depth and no spaces, as the server hashes it. */
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function hexBytes(hex) {
  return new Uint8Array(hex.match(/../g).map((b) => parseInt(b, 16)));
}

/** Check an NDJSON export; returns {events, chain: [problems], recomputed, seed: "ok"|"mismatch"|"not revealed"}. */
export async function verifyExport(ndjson) {
  const events = ndjson.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  const problems = [];
  let prev = GENESIS;
  let recomputed = 0;
  for (const [i, e] of events.entries()) {
    if (e.version !== i + 1) problems.push(`v${e.version}: versions are not contiguous`);
    if (e.prev_hash !== prev) problems.push(`v${e.version}: prev_hash does not link to the previous event`);
    const body = new TextEncoder().encode(canonical([e.prev_hash, e.stream_id, e.version, e.type, e.data]));
    if (await sha256Hex(body) === e.hash) recomputed += 1;
    else problems.push(`v${e.version}: hash does not match the event's content`);
    prev = e.hash;
  }
  const created = events.find((e) => e.type === "table.GameCreated");
  const revealed = events.find((e) => e.type === "table.SeedRevealed");
  let seed = "not revealed";
  if (created && revealed) {
    seed = (await sha256Hex(hexBytes(revealed.data.seed))) === created.data.seed_commitment ? "ok" : "mismatch";
  }
  return { events, chain: problems, recomputed, seed, commitment: created?.data.seed_commitment };
}
