"""Playing through the Python SDK (`stela_client`) in tests: seat players, play random legal commands.

Used by the end-to-end tests and by the SDK's own tests (`clients/python/tests`)."""

from __future__ import annotations

import random

from stela_client import Client, Game, Transport, VersionConflict


async def seated(url: str, kind: str, seats: int, options: dict[str, object] | None = None,
                 transport: Transport | None = None) -> tuple[str, list[Client]]:
    """A started game of `kind` with `seats` new players (client i sits at seat i); its id and the clients."""
    players = [Client(url, transport=transport) for _ in range(seats)]
    for i, player in enumerate(players):
        await player.register(f"p{i}")
    game = await players[0].create_game(kind, seats, options)
    for seat, player in enumerate(players[1:], start=1):
        await player.join(game.id, seat)
    await players[0].start(game.id)
    return game.id, players


async def play(game_id: str, players: list[Client], rng: random.Random, commands: int) -> Game:
    """Up to `commands` random legal commands from whichever seats must act (fewer if the game ends); the game."""
    played = 0
    while played < commands:
        game = await players[0].game(game_id)
        if game.status != "active":
            return game
        for seat in game.to_act:
            legal = await players[seat].legal(game_id)
            if not legal.commands:
                continue  # a simultaneous phase where this seat has acted already
            try:
                await players[seat].command(game_id, rng.choice(legal.commands), legal.version)
                played += 1
            except VersionConflict:
                pass  # another seat acted first: look again
    return await players[0].game(game_id)


async def play_out(game_id: str, players: list[Client], seed: int, max_commands: int = 20_000) -> Game:
    """Random legal commands until the game is over; the final game."""
    game = await play(game_id, players, random.Random(seed), max_commands)
    assert game.status != "active", f"no end after {max_commands} commands"
    return game
