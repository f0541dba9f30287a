"""SSE delivery latency: many subscribers on one game, time from the command's response to receipt.

Each subscriber holds its own HTTP connection to one `stela serve`; a player sends commands and we
record, for every subscriber, when the event with the command's version arrives.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time

import httpx

from bench.common import REDIS_URL, new_game, percentile, replicas, run, scratch_database


async def subscriber(client: httpx.AsyncClient, url: str, arrivals: dict[int, list[float]],
                     ready: asyncio.Event, counter: list[int], total: int) -> None:
    async with client.stream("GET", url) as resp:
        async for line in resp.aiter_lines():
            if line.startswith("id: "):
                version = int(line[4:])
                if version not in arrivals and not ready.is_set():
                    counter[0] += 1
                    if counter[0] >= total:
                        ready.set()
                    continue
                arrivals.setdefault(version, []).append(time.perf_counter())


async def measure(url: str, subscribers: int, commands: int) -> dict:
    limits = httpx.Limits(max_connections=subscribers + 20, max_keepalive_connections=subscribers + 20)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
        game_id, players = await new_game(client, "coatl", 2)
        arrivals: dict[int, list[float]] = {}
        ready = asyncio.Event()
        counter = [0]
        tasks = [asyncio.create_task(subscriber(client, f"/v1/games/{game_id}/stream", arrivals, ready, counter,
                                                subscribers)) for _ in range(subscribers)]
        await asyncio.wait_for(ready.wait(), 120)
        rnd = random.Random(1)
        latencies: list[float] = []
        for _ in range(commands):
            game = (await client.get(f"/v1/games/{game_id}")).json()
            seat = game["to_act"][0]
            legal = (await client.get(f"/v1/games/{game_id}/legal", headers=players[seat]["headers"])).json()
            sent = time.perf_counter()
            resp = await client.post(f"/v1/games/{game_id}/commands", headers=players[seat]["headers"],
                                     json={"command": rnd.choice(legal["commands"])})
            version = resp.json()["version"]
            deadline = time.perf_counter() + 30
            while len(arrivals.get(version, [])) < subscribers and time.perf_counter() < deadline:
                await asyncio.sleep(0.005)
            latencies += [t - sent for t in arrivals.get(version, [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return {"bench": "sse", "subscribers": subscribers, "commands": commands, "deliveries": len(latencies),
            "p50_ms": round(percentile(latencies, 0.5) * 1000, 1), "p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
            "max_ms": round(max(latencies) * 1000, 1)}


async def main(short: bool) -> dict:
    subscribers, commands = (200, 5) if short else (1000, 20)
    async with scratch_database() as dsn:
        with replicas(dsn, 1, REDIS_URL, STELA_PROJECTOR="off") as urls:
            return await measure(urls[0], subscribers, commands)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--short", action="store_true")
    print(json.dumps(run(main(parser.parse_args().short))))
