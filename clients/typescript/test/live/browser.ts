// Debian's Chromium driven by playwright-core, and a static origin serving this package (the page
// in test/browser imports dist/index.js), on another port than the API's: every call is CORS.
import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer, type Server as HttpServer } from "node:http";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { freePort } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url)); // build/test/live -> the package
const TYPES: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".map": "application/json" };

export const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                               "--disable-component-update", "--disable-sync"];

export function chromiumPath(): string {
  const path = process.env["CHROMIUM"] ?? "/usr/bin/chromium";
  if (!existsSync(path)) throw new Error(`no Chromium at ${path} (apt-get install chromium; .ci/run does it)`);
  return path;
}

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS });
}

/** Serve the package's files (read-only) on a free port; resolves with the origin and a closer. */
export async function staticOrigin(): Promise<{ origin: string; server: HttpServer }> {
  const server = createServer((req, res) => {
    const path = normalize(join(ROOT, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)));
    if (!path.startsWith(ROOT) || !existsSync(path) || !statSync(path).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "Content-Type": TYPES[extname(path)] ?? "application/octet-stream" });
    createReadStream(path).pipe(res);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${port}`, server };
}
