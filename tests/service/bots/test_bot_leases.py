"""Which bots a worker leases, on memory and PostgreSQL alike (service.store.accounts, above `activity`): a
bot of a game waits unleased while its game has free seats, and is leased once the game is full or under
way; of the leasable bots, those whose stream moved last go first, so 60 bots idling in open games nobody
fills never hold a worker's lease of 50 against a new bot game; a bot of an arena goes by its arena's stream."""

from __future__ import annotations

import uuid

import pytest

from service.store.accounts import BotSeat
from service.store.memory import MemoryStore
from service.store.postgres import PostgresStore
from service.store.protocol import Metadata, NewEvent, token_hash
from tests.conftest import fresh_database


@pytest.fixture(params=["memory", "postgres"])
def dsn(request):
    """None for the memory store, else a database of its own: bots other tests left in a shared one
    would take part in the leases."""
    if request.param == "memory":
        yield None
        return
    with fresh_database("stela_bot_leases") as own:
        yield own


@pytest.fixture
async def store(dsn):
    if dsn is None:
        yield MemoryStore()
        return
    pg = await PostgresStore.connect(dsn, 4)
    yield pg
    await pg.close()


async def game(store, seats: int, taken: int, *more: str) -> str:
    """A game stream with `seats` seats, `taken` of them taken, then the events typed `more`."""
    game_id = str(uuid.uuid4())
    events = [NewEvent("table.GameCreated", {"kind": "tally", "seats": seats, "options": {}})]
    events += [NewEvent("table.SeatTaken", {"seat": i, "player_id": f"p{i}", "name": "P"}) for i in range(taken)]
    events += [NewEvent(kind, {}) for kind in more]
    await store.append(game_id, 0, events, Metadata(actor="p0"), kind="tally")
    return game_id


async def bot(store, game_id: str | None = None, tournament_id: str | None = None, arena_id: str | None = None) -> str:
    bot_id = str(uuid.uuid4())
    await store.create_player(bot_id, "Bot", token_hash(bot_id))
    await store.accounts().add_bot(BotSeat(id=bot_id, player_id=bot_id, strategy="random", strength=3,
                                           game_id=game_id, tournament_id=tournament_id, arena_id=arena_id))
    return bot_id


async def leased(store, worker: str, limit: int = 50) -> list[str]:
    return [b.id for b, _ in await store.accounts().lease_bots(worker, 30, limit)]


async def test_a_bot_of_a_game_with_free_seats_waits_until_the_game_is_full(store):
    game_id = await game(store, 3, 2)
    waiting = await bot(store, game_id)
    assert await leased(store, "w") == []
    await store.append(game_id, 3, [NewEvent("table.SeatTaken", {"seat": 2, "player_id": "p2", "name": "P"})],
                       Metadata(actor="p2"))
    assert await leased(store, "w") == [waiting]  # full: the bot starts it


async def test_a_seat_given_up_makes_the_game_wait_again(store):
    game_id = await game(store, 2, 2, "table.SeatLeft")
    await bot(store, game_id)
    assert await leased(store, "w") == []


async def test_bots_of_started_ended_or_aborted_games_and_of_tournaments_are_leased(store):
    bots = {await bot(store, await game(store, 3, 1, kind)) for kind in ("table.GameStarted", "table.GameAborted")}
    bots.add(await bot(store, tournament_id=str(uuid.uuid4())))
    assert set(await leased(store, "w")) == bots


async def test_sixty_bots_idle_in_unfilled_games_leave_room_for_a_new_bot_game(store):
    for _ in range(60):
        await bot(store, await game(store, 3, 2))
    fresh = await bot(store, await game(store, 2, 2))
    assert await leased(store, "w") == [fresh]


async def test_the_bots_whose_game_moved_last_go_first(store):
    stale_game, busy_game = await game(store, 2, 2, "table.GameStarted"), await game(store, 2, 2, "table.GameStarted")
    stale, busy = await bot(store, stale_game), await bot(store, busy_game)
    await store.append(busy_game, 4, [NewEvent("tally.Added", {"amount": 1})], Metadata(actor="p0"))
    assert await leased(store, "w", limit=1) == [busy]
    assert await leased(store, "other", limit=2) == [stale]  # the busy one is leased to "w" already


async def test_a_bot_of_an_arena_goes_by_its_arenas_activity(store):
    arena_id, tournament_id = str(uuid.uuid4()), str(uuid.uuid4())
    in_arena = await bot(store, arena_id=arena_id)  # the older bot: only its arena's activity puts it first
    await bot(store, tournament_id=tournament_id)
    await store.append(f"tournament-{tournament_id}", 0, [NewEvent("tournament.Created", {})], Metadata(actor="o"))
    await store.append(f"arena-{arena_id}", 0, [NewEvent("arena.ArenaCreated", {})], Metadata(actor="o"))
    assert await leased(store, "w", limit=1) == [in_arena]
