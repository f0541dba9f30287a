"""Can one request freeze a replica? `/healthz` latency while hostile bodies are posted (issue 43).

One `stela serve` replica; for each body size (16 KiB to 10 MiB) and each hostile family (unterminated
`\\"` pairs, which cost the old duplicate-key scan the square of the body's size; a long run of keys
that repeat in sibling objects, which sends the scan to its decoder fallback; a forged form on the
OAuth token endpoint with one field per few bytes), a client posts the body anonymously (`POST
/v1/players` and `POST /oauth/token`) while another reads `/healthz` every 5 ms. Printed per case: the
answer's status, the body's round trip, and `/healthz`'s p50, p99 and worst latency while it ran.
Every body over the documented limit (64 KiB for JSON, 16 KiB for the token form) must be answered
413 before it is scanned, and no case may hold `/healthz` for 100 ms.

Measured on this machine (2 cores, load ~1; the commit after 8d6d468): `/healthz` worst 4-17 ms in every
case from 16 KiB to 10 MiB (46 ms once, on the run's first request), every body over its limit 413 in
3-19 ms. Before the fix (issue 43's probe): 16 KB
froze `/healthz` 1 s, 32 KB 4.4 s, 64 KB 18 s, 200 KB over 150 s.

Run `python -m bench.freeze` (`--short`: 16 KiB to 1 MiB, one family each).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

import httpx

from bench.common import percentile, replicas, scratch_database

SIZES = [16 << 10, 32 << 10, 64 << 10, 200 << 10, 1 << 20, 10 << 20]
SHORT_SIZES = [16 << 10, 64 << 10, 1 << 20]


def hostile(family: str, size: int) -> tuple[str, bytes, str]:
    """(path, body, content type) of `size` bytes of the given family."""
    if family == "escapes":
        return "/v1/players", (b'{"name": "' + b'\\"' * size)[:size], "application/json"
    if family == "sibling_keys":
        return "/v1/players", (b"[" + b'{"name":1},' * size)[:size], "application/json"
    return "/oauth/token", ("&".join(f"f{i}=x" for i in range(size // 4)).encode())[:size], \
        "application/x-www-form-urlencoded"


async def probe(url: str, family: str, size: int) -> dict:
    path, body, content_type = hostile(family, size)
    latencies: list[float] = []
    done = asyncio.Event()
    async with httpx.AsyncClient(base_url=url, timeout=300) as health, \
            httpx.AsyncClient(base_url=url, timeout=300) as attacker:
        async def poll() -> None:
            while not done.is_set():
                started = time.perf_counter()
                await health.get("/healthz")
                latencies.append(time.perf_counter() - started)
                await asyncio.sleep(0.005)

        poller = asyncio.create_task(poll())
        await asyncio.sleep(0.05)
        started = time.perf_counter()
        try:
            resp = await attacker.post(path, content=body, headers={"Content-Type": content_type})
            status = resp.status_code
        except httpx.HTTPError as error:  # a server may close a connection whose body it refused unread
            status = type(error).__name__
        took = time.perf_counter() - started
        await asyncio.sleep(0.05)
        done.set()
        await poller
    ms = [v * 1000 for v in latencies]
    return {"bench": "freeze", "family": family, "bytes": size, "status": status,
            "request_ms": round(took * 1000, 1), "healthz_p50_ms": round(percentile(ms, 0.5), 1),
            "healthz_p99_ms": round(percentile(ms, 0.99), 1), "healthz_max_ms": round(max(ms), 1),
            "healthz_reads": len(ms)}


async def main(short: bool) -> int:
    families = ["escapes"] if short else ["escapes", "sibling_keys", "token_form"]
    worst = 0.0
    async with scratch_database() as dsn:
        with replicas(dsn, 1, None) as (url,):
            for family in families:
                for size in SHORT_SIZES if short else SIZES:
                    row = await probe(url, family, size)
                    worst = max(worst, row["healthz_max_ms"])
                    print(json.dumps(row), flush=True)
    print(json.dumps({"bench": "freeze", "healthz_worst_ms": worst}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main("--short" in sys.argv[1:])))
