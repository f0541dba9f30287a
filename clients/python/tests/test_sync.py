"""The synchronous client against a real server: a game against a bot asked for at creation, played from
the multiplexed stream's `turn` frames with `for`, to its end; a tournament of bots run with the
organiser's tools and followed to its end; an arena's lifecycle; the same names as the async client."""

from __future__ import annotations

import inspect
import random

from stela_client import OPERATIONS, Client, Conflict, EventFrame, Snapshot, SyncClient, Turn, contract

OVER = ("finished", "aborted")


def test_the_synchronous_client_has_every_method_of_the_async_one_with_the_same_parameters():
    names = {n for n, v in vars(Client).items() if not n.startswith("_") and callable(v)} | set(
        name for names in OPERATIONS.values() for name in names)
    sync, async_ = SyncClient("http://127.0.0.1:9"), Client("http://127.0.0.1:9")
    for name in sorted(names - {"send", "call", "json"}):  # the async escape hatches (service.bots) only
        assert hasattr(sync, name), name
        if name not in ("run", "as_player", "close"):
            assert inspect.signature(getattr(sync, name)) == inspect.signature(getattr(async_, name)), name
    sync.close()


def test_a_game_against_a_bot_is_played_to_its_end_from_one_stream(server):
    rng = random.Random(7)
    with SyncClient(server.url) as ann:
        ann.register("Ann")
        game = ann.create_game("coatl", 2, bots=[{"strategy": "random", "strength": 1}])
        assert game.seats[1].player_id is not None and game.seats[1].player_id != game.seats[0].player_id
        try:
            ann.start(game.id)
        except Conflict:
            pass  # the bot's worker started it first
        versions: list[int] = []
        played = 0
        stream = ann.stream([game.id], legal=True)
        for frame in stream:
            match frame:
                case Snapshot(game=g):
                    versions.append(g.version)
                case EventFrame(event=e):
                    versions.append(e.version)
                case Turn(status=status) if status in OVER:
                    break  # leaving the loop: the client closes the stream
                case Turn(version=version, your_turn=True, commands=[*commands]) if commands:
                    ann.command(game.id, rng.choice(commands), version)
                    played += 1
        assert ann.game(game.id).status in OVER and played > 0
        assert versions == list(range(versions[0], versions[-1] + 1))  # each version once, in order
        assert len(ann.streams) == 1
    assert stream.closed


def test_a_tournament_of_bots_with_the_organisers_tools_followed_to_its_end(server):
    with SyncClient(server.url) as org:
        org.register("Org")
        created = org.create_tournament("coatl", seats=2, rounds=1, name="bots only")
        tid = created.tournament_id
        view = org.add_tournament_bots(tid, count=4, strategy="random", strength=1)
        players = [p.player_id for p in view.standings]
        assert view.players == len(players) == 4
        org.forbid_pairing(tid, players[:2])
        org.pause_player(tid, players[3])
        org.resume_player(tid, players[3])
        assert org.tournament(tid).status == "registration"
        org.start_tournament(tid)
        types = [event.type for event in org.tournament_stream(tid)]  # ends after TournamentEnded
        assert "tournament.TournamentEnded" in types  # then what was appended with it (the seed revealed)
        report = org.tournament_report(tid)
        assert report and b"," in org.tournament_report_csv(tid)
        assert org.tournament_events(tid).events
        assert tid in {t.tournament_id for t in org.tournaments(kind="coatl").items}


def test_an_arena_is_created_joined_and_left(server):
    with SyncClient(server.url) as host, SyncClient(server.url) as ann:
        host.register("Host")
        ann.register("Ann")
        arena = host.create_arena("coatl", minutes=5, seats=2, starts_in_seconds=600, name="later")
        aid = arena.arena_id
        joined = ann.join_arena(aid)  # each move answers with Ann's part of the arena, not the arena
        assert isinstance(joined, contract.ArenaEntrantView)
        assert (joined.name, joined.presence, joined.players, joined.sheet) == ("Ann", "active", 1, [])
        assert ann.pause_arena(aid).presence == "paused"
        left = ann.leave_arena(aid)
        assert (left.arena_id, left.player_id, left.presence) == (aid, joined.player_id, "left")
        assert left.version == joined.version + 2
        assert host.arena(aid).arena_id == aid and aid in {a.arena_id for a in host.arenas().items}
        assert host.arena_events(aid).events
