"""Continuous pairing: whoever is free is paired at once, by score, never against the same opponents
twice in a row; game ids and seeds are pure functions of the arena.

The rule (re-derived by `verify`): the free players (active, not in a game) are ordered by points,
then rating, then joining order, best first. From the top, each table takes the first free player
and the nearest players below them in that order with whom it is not *a repeat*: a table repeats
when some player of it would face exactly the opponents of their own last game. The nearest means
the first valid choice in lexicographic order of positions among the next `WINDOW` players; a
player for whom no valid table exists there waits for the next pairing. Fewer free players than
the table size wait too. In a table the player who has sat first least often (relative to their
games played) takes the first seat, then the next, ties going to the better placed.

  game_id   = RFC 4122 UUIDv5(namespace = the arena id, name = "<number>")
  game_seed = SHA-256(b"stela-arena-game\\x00" || arena seed || u64be(number))
with `number` counting the arena's games from 1 in pairing order.
"""

from __future__ import annotations

import hashlib
from itertools import combinations

from domain.tournament.arena.state import Player

WINDOW = 6  # players below the first one considered for a table beyond its size


def order_key(player: Player) -> tuple[int, int, int]:
    """Best first: points, then rating, then who joined first."""
    return (-player.points, -player.rating, player.index)


def repeats(table: list[Player]) -> bool:
    """Would some player of `table` face exactly the opponents of their last game?"""
    ids = {p.player_id for p in table}
    return any(p.last_opponents and set(p.last_opponents) == ids - {p.player_id} for p in table)


def tables(free: list[Player], seats: int) -> list[list[Player]]:
    """The tables of `seats` players for `free`, each in seat order (see the module's rule)."""
    queue = sorted(free, key=order_key)
    paired: list[list[Player]] = []
    while len(queue) >= seats:
        head, rest = queue[0], queue[1:]
        found = None
        for others in combinations(range(min(len(rest), seats - 1 + WINDOW)), seats - 1):
            candidate = [head, *(rest[i] for i in others)]
            if not repeats(candidate):
                found = candidate
                break
        if found is None:
            queue = rest  # the head waits for the next pairing
            continue
        chosen = {p.player_id for p in found}
        queue = [p for p in queue if p.player_id not in chosen]
        paired.append(seat_order(found))
    return paired


def seat_order(table: list[Player]) -> list[Player]:
    """Who has sat first least, relative to their games, sits first (ties: the better placed)."""
    placed = {p.player_id: i for i, p in enumerate(table)}
    return sorted(table, key=lambda p: (2 * p.firsts - p.games, placed[p.player_id]))


def game_id(arena_id: str, number: int) -> str:
    """The id of the arena's game `number`: UUIDv5 by hand (SHA-1 of namespace and name; the domain imports
    no uuid), so `uuid.uuid5(UUID(arena_id), str(number))` gives the same."""
    digest = bytearray(hashlib.sha1(bytes.fromhex(arena_id.replace("-", "")) + str(number).encode()).digest()[:16])
    digest[6] = 0x50 | (digest[6] & 0x0F)
    digest[8] = 0x80 | (digest[8] & 0x3F)
    text = digest.hex()
    return "-".join((text[:8], text[8:12], text[12:16], text[16:20], text[20:]))


def game_seed(seed_hex: str, number: int) -> str:
    return hashlib.sha256(b"stela-arena-game\x00" + bytes.fromhex(seed_hex) + number.to_bytes(8, "big")).hexdigest()
