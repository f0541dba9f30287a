"""HTTP throughput: N concurrent games played with random legal commands against 1 and 2 replicas.

Prints commands/s and p50/p99 command latency per replica count, and the 2-vs-1 throughput ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time

import httpx

from bench.common import REDIS_URL, new_game, percentile, replicas, run, scratch_database


async def play(urls: list[str], games: int, seconds: float, kind: str) -> dict:
    clients = [httpx.AsyncClient(base_url=u, timeout=30, limits=httpx.Limits(max_connections=200)) for u in urls]
    latencies: list[float] = []
    setups = [await new_game(clients[i % len(clients)], kind, 2) for i in range(games)]
    deadline = time.perf_counter() + seconds

    async def worker(i: int) -> None:
        rnd = random.Random(i)
        client = clients[i % len(clients)]
        game_id, players = setups[i]
        while time.perf_counter() < deadline:
            game = (await client.get(f"/v1/games/{game_id}")).json()
            if game["status"] != "active":
                game_id, players = await new_game(client, kind, 2)
                continue
            seat = rnd.choice(game["to_act"])
            legal = (await client.get(f"/v1/games/{game_id}/legal", headers=players[seat]["headers"])).json()
            command = rnd.choice(legal["commands"])
            start = time.perf_counter()
            resp = await client.post(f"/v1/games/{game_id}/commands", headers=players[seat]["headers"],
                                     json={"command": command})
            latencies.append(time.perf_counter() - start)
            assert resp.status_code == 200, resp.text

    began = time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(games)))
    elapsed = time.perf_counter() - began
    for c in clients:
        await c.aclose()
    return {"replicas": len(urls), "games": games, "commands": len(latencies),
            "commands_per_s": round(len(latencies) / elapsed, 1),
            "p50_ms": round(percentile(latencies, 0.5) * 1000, 2), "p99_ms": round(percentile(latencies, 0.99) * 1000, 2)}


async def main(short: bool, kind: str) -> list[dict]:
    games, seconds = (8, 4.0) if short else (32, 20.0)
    results = []
    async with scratch_database() as dsn:
        for count in (1, 2):
            with replicas(dsn, count, REDIS_URL, STELA_PROJECTOR="off") as urls:
                results.append(await play(urls, games, seconds, kind))
    ratio = results[1]["commands_per_s"] / results[0]["commands_per_s"]
    return [*results, {"two_vs_one_replica_throughput": round(ratio, 2)}]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--kind", default="coatl")
    args = parser.parse_args()
    for line in run(main(args.short, args.kind)):
        print(json.dumps({"bench": "http", **line}))
