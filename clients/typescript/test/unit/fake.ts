// A scripted HTTP server on a free loopback port: each request is recorded and answered by the
// test's handler, so retries, headers and SSE reconnects are observed on a real socket.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Seen {
  method: string;
  url: URL;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
}

export type Handler = (request: Seen, response: ServerResponse, index: number) => void;

export async function fakeServer(handler: Handler): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const request = { method: req.method ?? "", url: new URL(req.url ?? "/", "http://x"), headers: req.headers,
                        body: Buffer.concat(chunks).toString(), at: Date.now() };
      seen.push(request);
      handler(request, res, seen.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "Content-Type": status >= 400 ? "application/problem+json" : "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export function problem(res: ServerResponse, status: number, code: string, extra: Record<string, unknown> = {},
                        headers: Record<string, string> = {}): void {
  json(res, status, { type: `https://stela.dev/problems/${code}`, title: "t", status, code, detail: code, ...extra },
       headers);
}

/** Resolves when `check` is true, polling; rejects after a generous deadline. */
export async function until(check: () => boolean, what: string, deadlineMs = 20_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
