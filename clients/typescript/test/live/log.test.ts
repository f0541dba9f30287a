// The transparency log through the SDK (docs/audit.md), against a live server signing with a key made here:
// a game's creation leaf is proven in a signed checkpoint, a witness's cosignature submitted through the SDK
// is served with the checkpoint from then on, and a later checkpoint is proven consistent with it.
import assert from "node:assert/strict";
import { createHash, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { test } from "node:test";
import { StelaClient } from "../../src/index.js";
import { server } from "./harness.js";

/** A C2SP signed-note key of `kind` (0x01 a log's Ed25519 key, 0x04 a witness's cosignature key). */
function noteKey(name: string, kind: number) {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const pub = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32);
  const id = createHash("sha256").update(Buffer.concat([Buffer.from(name + "\n"), Buffer.from([kind]), pub]))
    .digest().subarray(0, 4);
  const b64 = (bytes: Buffer) => bytes.toString("base64");
  return {
    name, id, privateKey: privateKey as KeyObject,
    secret: `PRIVATE+KEY+${name}+${id.toString("hex")}+${b64(Buffer.concat([Buffer.from([kind]), seed]))}`,
    verifier: `${name}+${id.toString("hex")}+${b64(Buffer.concat([Buffer.from([kind]), pub]))}`,
  };
}

const log = noteKey("sdk-ts.example/stela", 0x01);
// the shared server signs with this key from its first start (test/live/suite.ts imports this file first)
Object.assign(server.env, { STELA_LOG_KEY: log.secret, STELA_LOG_CHECKPOINT_SECONDS: "3600" });

async function checkpointed(client: StelaClient, gameId: string): Promise<{ note: string; streamId: string }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const note = await client.issueCheckpoint();
    const page = await client.logLeaves({ limit: 1000 });
    const leaf = page.leaves.find((l) => l.stream_id.includes(gameId));
    if (leaf) return { note, streamId: leaf.stream_id };
    assert.ok(Date.now() < deadline, "the game's creation was not checkpointed in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sizeOf = (note: string) => Number(note.split("\n")[1]);
const signers = (note: string) => note.split("\n\n")[1]!.trim().split("\n").map((line) => line.split(" ")[1]);

test("a game is proven in a signed checkpoint, a witness cosigns it, a later one is consistent", { timeout: 300_000 }, async () => {
  await server.start();
  const { client } = await StelaClient.register(server.url, "Ann");
  assert.equal((await client.logInfo()).public_key, log.verifier);
  const game = await client.createGame({ kind: "coatl", seats: 2 });
  const { note, streamId } = await checkpointed(client, game.id);
  const size = sizeOf(note);
  assert.deepEqual(signers(note), [log.name]);
  assert.equal(await client.checkpointOfSize(size), note);
  assert.ok((await client.inclusionProof(streamId, size)).leaves.length > 0);

  const witness = noteKey("witness.example/w1", 0x04);
  const text = note.split("\n\n")[0] + "\n";
  const time = Math.floor(Date.now() / 1000);
  const stamp = Buffer.alloc(8);
  stamp.writeBigUInt64BE(BigInt(time));
  const signature = sign(null, Buffer.from(`cosignature/v1\ntime ${time}\n${text}`), witness.privateKey);
  const line = `— ${witness.name} ${Buffer.concat([witness.id, stamp, signature]).toString("base64")}\n`;
  const cosigned = await client.addCosignature({ note: note + line, witness_key: witness.verifier });
  assert.ok(signers(cosigned).includes(witness.name));
  assert.ok(signers(await client.checkpointOfSize(size)).includes(witness.name));

  const other = await client.createGame({ kind: "tikal", seats: 2 });
  const later = sizeOf((await checkpointed(client, other.id)).note);
  const proof = await client.consistencyProof(size, later);
  assert.ok(proof.path.length > 0 && proof.path.every((h) => Buffer.from(h, "base64").length === 32));
});
