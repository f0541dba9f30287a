"""Can one request freeze a replica? `/healthz` latency while hostile bodies are posted (issue 43).

One `stela serve` replica; for each body size (16 KiB to 10 MiB) and each hostile family (unterminated
`\\"` pairs, which cost the old duplicate-key scan the square of the body's size; a long run of keys
that repeat in sibling objects, which sends the scan to its decoder fallback; a forged form on the
OAuth token endpoint with one field per few bytes), a client posts the body anonymously (`POST
/v1/players` and `POST /oauth/token`) again and again for `ATTACK_S` seconds while another reads
`/healthz` every 5 ms. Before each family, the same reader alone for as long (`quiet`): on a shared
machine the load adds latency of its own, and the quiet reads show how much. Printed per case: the
answers' statuses, the body's round trip (p50 and worst), and `/healthz`'s p50, p99 and worst latency
while it ran. Checked (exit 1 otherwise): every body over the documented limit (64 KiB for JSON,
16 KiB for the token form) is refused 413 (or its connection closed unread), and no answer is a 5xx.
The latency is printed, not failed: a body that held the loop would show as `/healthz` waiting as
long as its round trip (before the fix: seconds); no case may hold it for 100 ms beyond the quiet reads.

Measured 2026-11-29 on the shared 2-core machine at load 14-18 from other work (quiet `/healthz` alone: p99
9-175 ms, worst 175 ms): in the 18 cases from 16 KiB to 10 MiB `/healthz`'s p50 1.8-36 ms and p99 6-471 ms (8 of
18 cases p99 under 40 ms, 14 under 100 ms; the worst beside 16 KiB of sibling keys, whose posts took 17.5 ms at
p50), every body over its limit refused 413 in 1-31 ms at p50, every body within it 400 in 4.6-55 ms. A body
holds the app under 7 ms of CPU (tests/service/edge/test_hostile_edges.py). Before the fix (issue 43's probe):
16 KB froze `/healthz` 1 s, 32 KB 4.4 s, 64 KB 18 s, 200 KB over 150 s.

Run `python -m bench.freeze` (`--short`: 16 KiB to 1 MiB, one family, shorter attacks).
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
JSON_LIMIT, FORM_LIMIT = 64 << 10, 16 << 10  # service.edge.middleware.MAX_BODY_BYTES, routes.oauth.TOKEN_FORM_BYTES
ATTACK_S, SHORT_ATTACK_S = 1.0, 0.3


def hostile(family: str, size: int) -> tuple[str, bytes, str]:
    """(path, body, content type) of `size` bytes of the given family."""
    if family == "escapes":
        return "/v1/players", (b'{"name": "' + b'\\"' * size)[:size], "application/json"
    if family == "sibling_keys":
        return "/v1/players", (b"[" + b'{"name":1},' * size)[:size], "application/json"
    return "/oauth/token", ("&".join(f"f{i}=x" for i in range(size // 4)).encode())[:size], \
        "application/x-www-form-urlencoded"


def _ms(values: list[float]) -> list[float]:
    return [v * 1000 for v in values]


async def reading(url: str, seconds: float, attack: object = None) -> tuple[list[float], object]:
    """`/healthz` read every 5 ms while `attack` (a coroutine function, or nothing: quiet) runs, for at
    least `seconds`; the reads' latencies (s) and what the attack returned."""
    latencies: list[float] = []
    done = asyncio.Event()
    async with httpx.AsyncClient(base_url=url, timeout=300) as health:
        async def poll() -> None:
            while not done.is_set():
                started = time.perf_counter()
                await health.get("/healthz")
                latencies.append(time.perf_counter() - started)
                await asyncio.sleep(0.005)

        poller = asyncio.create_task(poll())
        await asyncio.sleep(0.05)
        outcome = await attack(seconds) if attack is not None else await asyncio.sleep(seconds)
        await asyncio.sleep(0.05)
        done.set()
        await poller
    return latencies, outcome


async def probe(url: str, family: str, size: int, seconds: float) -> dict:
    """The body of `family` and `size` posted back to back for `seconds` (at least once), `/healthz` read
    meanwhile."""
    path, body, content_type = hostile(family, size)
    statuses: list[int | str] = []
    took: list[float] = []

    async def attack(seconds: float) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=300) as attacker:
            until = time.perf_counter() + seconds
            while not took or time.perf_counter() < until:
                started = time.perf_counter()
                try:
                    resp = await attacker.post(path, content=body, headers={"Content-Type": content_type})
                    statuses.append(resp.status_code)
                except httpx.HTTPError as error:  # a server may close a connection whose body it refused unread
                    statuses.append(type(error).__name__)
                took.append(time.perf_counter() - started)

    latencies, _ = await reading(url, seconds, attack)
    limit = FORM_LIMIT if family == "token_form" else JSON_LIMIT
    wrong = [s for s in statuses if (isinstance(s, int) and s >= 500)
             or (size > limit and s != 413 and not isinstance(s, str))]
    ms = _ms(latencies)
    return {"bench": "freeze", "family": family, "bytes": size, "limit": limit,
            "statuses": {str(s): statuses.count(s) for s in sorted(set(statuses), key=str)},
            "posts": len(took), "request_p50_ms": round(percentile(_ms(took), 0.5), 1),
            "request_max_ms": round(max(_ms(took)), 1), "healthz_p50_ms": round(percentile(ms, 0.5), 1),
            "healthz_p99_ms": round(percentile(ms, 0.99), 1), "healthz_max_ms": round(max(ms), 1),
            "healthz_reads": len(ms), "wrong": wrong}


async def quiet(url: str, family: str, seconds: float) -> dict:
    """`/healthz` alone for as long as an attack: what the machine's own load costs it."""
    ms = _ms((await reading(url, seconds))[0])
    return {"bench": "freeze", "family": family, "quiet": True, "healthz_p50_ms": round(percentile(ms, 0.5), 1),
            "healthz_p99_ms": round(percentile(ms, 0.99), 1), "healthz_max_ms": round(max(ms), 1),
            "healthz_reads": len(ms)}


async def main(short: bool) -> int:
    families = ["escapes"] if short else ["escapes", "sibling_keys", "token_form"]
    seconds = SHORT_ATTACK_S if short else ATTACK_S
    worst, worst_quiet, wrong = 0.0, 0.0, []
    async with scratch_database() as dsn:
        with replicas(dsn, 1, None) as (url,):
            for family in families:
                row = await quiet(url, family, seconds)
                worst_quiet = max(worst_quiet, row["healthz_max_ms"])
                print(json.dumps(row), flush=True)
                for size in SHORT_SIZES if short else SIZES:
                    row = await probe(url, family, size, seconds)
                    worst = max(worst, row["healthz_max_ms"])
                    wrong += [(family, size, s) for s in row["wrong"]]
                    print(json.dumps(row), flush=True)
    print(json.dumps({"bench": "freeze", "healthz_worst_ms": worst, "healthz_worst_quiet_ms": worst_quiet,
                      "wrong_answers": wrong[:10]}), flush=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main("--short" in sys.argv[1:])))
