"""The arena's rules as given / when / then: joining, pausing, leaving, pairing, scoring, berserk, the end."""

from __future__ import annotations

import pytest

import domain.tournament as T
import domain.tournament.arena as A
from domain.kernel import RuleViolation
from tests.domain.tournament.arena.support import ARENA, ORGANISER, SEED, START, apply, given, joined, opened, outcome


def refused(state: A.ArenaState, actor: str | None, command: object, code: str) -> None:
    with pytest.raises(RuleViolation) as caught:
        A.decide(state, actor, command)  # type: ignore[arg-type]
    assert caught.value.code == code
    assert code in A.CODES


def test_an_arena_lasts_its_minutes_from_its_start():
    state = given(*opened(minutes=7))
    assert (state.settings.starts_at_ms, state.settings.ends_at_ms) == (START, START + 7 * 60_000)
    assert state.status == "open" and state.seed == bytes(range(32)).hex()


@pytest.mark.parametrize("bad", [dict(seats=1), dict(seats=7), dict(minutes=0), dict(kind="")])
def test_settings_that_cannot_run_are_refused(bad):
    command = A.CreateArena(**{"kind": "coatl", **bad})
    with pytest.raises(RuleViolation) as caught:
        A.create(ARENA, ORGANISER, command, b"x" * 32)
    assert caught.value.code == "arena.bad_options"


def test_two_free_players_are_paired_at_once_and_nobody_else_waits_alone():
    state = joined(given(*opened()), "a", "b", "c")
    state, events = apply(state, None, A.Pair(at_ms=START))
    [paired] = events
    assert len(paired.games) == 1 and paired.games[0].number == 1
    assert paired.games[0].game_id == A.game_id(ARENA, 1) and paired.games[0].seed == A.game_seed(state.seed, 1)
    assert [p.player_id for p in state.free()] == ["c"]
    refused(state, None, A.Pair(at_ms=START + 1), "arena.nobody_to_pair")


def test_players_meet_others_of_their_score():
    state = joined(given(*opened()), "a", "b", "c", "d")
    state, [paired] = apply(state, None, A.Pair(at_ms=START))
    for game in paired.games:  # seat 0 wins every game
        state, _ = apply(state, None, A.RecordResult(game_id=game.game_id, outcome=outcome([1, 2])))
    state, [second] = apply(state, None, A.Pair(at_ms=START + 1000))
    winners = {g.players[0] for g in paired.games}
    for game in second.games:
        assert (set(game.players) <= winners) or not (set(game.players) & winners)


def test_the_same_opponents_never_meet_twice_in_a_row():
    state = joined(given(*opened()), "a", "b")
    state, [paired] = apply(state, None, A.Pair(at_ms=START))
    state, _ = apply(state, None, A.RecordResult(game_id=paired.games[0].game_id, outcome=outcome([1, 1])))
    refused(state, None, A.Pair(at_ms=START + 1), "arena.nobody_to_pair")
    state = joined(state, "c")
    state, [again] = apply(state, None, A.Pair(at_ms=START + 2))
    assert len(again.games) == 1 and "c" in again.games[0].players


def test_a_win_is_two_a_draw_one_and_a_streak_of_two_wins_doubles_the_next_games():
    state = joined(given(*opened()), "a", "b", "c", "d", "e")
    sheet = []
    for round_, result in enumerate([[1, 2], [1, 2], [1, 2], [1, 1], [1, 2]]):
        state, [paired] = apply(state, None, A.Pair(at_ms=START + round_))
        game = next(g for g in paired.games if "a" in g.players)
        ranks = result if game.players[0] == "a" else list(reversed(result))
        for g in paired.games:
            state, _ = apply(state, None, A.RecordResult(game_id=g.game_id, outcome=outcome(
                ranks if g is game else [1, 1])))
        sheet.append(state.players["a"].sheet[-1])
    assert sheet == [2, 2, 4, 2, 2]  # win, win, on fire: 4, a draw on fire: 2 and the streak ends, then 2


def test_a_berserk_win_scores_one_more_and_a_berserk_loss_nothing():
    state = joined(given(*opened()), "a", "b")
    state, [paired] = apply(state, None, A.Pair(at_ms=START))
    game = paired.games[0]
    first, second = game.players
    state, _ = apply(state, first, A.Berserk(game_id=game.game_id))
    refused(state, first, A.Berserk(game_id=game.game_id), "arena.already_berserk")
    refused(state, "nobody", A.Berserk(game_id=game.game_id), "arena.not_your_game")
    state, _ = apply(state, second, A.Berserk(game_id=game.game_id))
    state, [scored] = apply(state, None, A.RecordResult(game_id=game.game_id, outcome=outcome([2, 1]), moves=[8, 8]))
    assert scored.points == [0, 3]
    refused(state, first, A.Berserk(game_id=game.game_id), "arena.game_over")


def _berserk_game(moves_needed: int | None = None) -> tuple[A.ArenaState, str]:
    """Two players paired, the second berserked: the state and the game."""
    state = joined(given(*A.create(ARENA, ORGANISER, A.CreateArena(kind="coatl", starts_at_ms=START,
                                                                   berserk_moves=moves_needed), SEED)), "a", "b")
    state, [paired] = apply(state, None, A.Pair(at_ms=START))
    game = paired.games[0]
    state, _ = apply(state, game.players[1], A.Berserk(game_id=game.game_id))
    return state, game.game_id


@pytest.mark.parametrize("moves,points", [([1, 1], 2), ([9, 3], 2), ([9, 4], 3), ([2, 30], 3), (None, 2)])
def test_a_berserk_win_counts_only_after_the_berserkers_own_minimum_moves(moves, points):
    # issue 44 (lichess: a berserk counts only in a game of at least 7 plies): an instant resignation by a
    # berserker's opponent, or one by a berserker's accomplice, farms nothing; uncounted moves count as none
    state, game_id = _berserk_game(4)
    state, [scored] = apply(state, None, A.RecordResult(game_id=game_id, outcome=outcome([2, 1]), moves=moves))
    assert scored.points == [0, points] and scored.moves == moves


def test_the_minimum_is_the_kinds_default_scaled_from_lichess_seven_plies():
    assert given(*opened()).settings.berserk_moves == A.berserk_moves("coatl") == 8  # 4 turns of ~2 commands
    assert A.berserk_moves("tikal") > A.berserk_moves("goldmine") > A.berserk_moves("tobago") > 4
    assert A.berserk_moves("tally") == 4  # one command a turn: the berserker's 4th move, as in chess
    state, game_id = _berserk_game()
    refused(state, None, A.RecordResult(game_id=game_id, outcome=outcome([2, 1]), moves=[8]), "arena.bad_outcome")
    state, [scored] = apply(state, None, A.RecordResult(game_id=game_id, outcome=outcome([2, 1]), moves=[0, 8]))
    assert scored.points == [0, 3]


def test_berserk_is_refused_when_the_arena_turned_it_off():
    state = joined(given(*opened(berserk=False)), "a", "b")
    state, [paired] = apply(state, None, A.Pair(at_ms=START))
    refused(state, "a", A.Berserk(game_id=paired.games[0].game_id), "arena.no_berserk")


def test_four_seat_places_score_six_four_two_nothing_and_shared_places_share():
    assert [A.place_points([1, 2, 3, 4], s) for s in range(4)] == [6, 4, 2, 0]
    assert [A.place_points([1, 1, 3, 4], s) for s in range(4)] == [5, 5, 2, 0]
    assert [A.is_win([1, 1, 3, 4], s) for s in range(4)] == [False] * 4
    assert A.is_win([2, 1, 3], 1)


def test_a_paused_player_is_not_paired_until_they_join_again_with_their_points():
    state = joined(given(*opened()), "a", "b", "c")
    state, _ = apply(state, "c", A.Pause())
    refused(state, "c", A.Pause(), "arena.already_paused")
    state, [paired] = apply(state, None, A.Pair(at_ms=START))
    state, _ = apply(state, None, A.RecordResult(game_id=paired.games[0].game_id, outcome=outcome([1, 2])))
    refused(state, None, A.Pair(at_ms=START + 1), "arena.nobody_to_pair")
    state = joined(state, "c")
    state, [again] = apply(state, None, A.Pair(at_ms=START + 2))
    assert "c" in again.games[0].players


def test_pause_and_leave_are_the_competitions_own_commands_and_facts_and_each_player_gives_them_for_themselves():
    state = joined(given(*opened()), "a", "b")
    assert A.Pause is T.Pause and A.Leave is T.Withdraw  # one command, whatever the format
    refused(state, "a", T.Pause(player_id="b"), "arena.not_yourself")
    refused(state, ORGANISER, T.Withdraw(player_id="b"), "arena.not_yourself")
    state, [paused] = apply(state, "a", T.Pause(player_id="a"))
    state, [left] = apply(state, "b", T.Withdraw())
    assert (paused, left) == (T.PlayerPaused(player_id="a"), T.PlayerWithdrew(player_id="b"))  # one fact, any format


def test_a_player_who_left_plays_out_their_game_keeps_their_points_and_cannot_return():
    state = joined(given(*opened()), "a", "b", "c")
    state, [paired] = apply(state, None, A.Pair(at_ms=START))
    leaver = paired.games[0].players[0]
    state, _ = apply(state, leaver, A.Leave())
    state, _ = apply(state, None, A.RecordResult(game_id=paired.games[0].game_id, outcome=outcome([1, 2])))
    assert state.players[leaver].points == 2 and state.players[leaver].presence == "left"
    refused(state, leaver, A.Join(name="again"), "arena.left")
    assert leaver not in [p.player_id for p in state.free()]
    assert A.actions(state, leaver) == []


def test_no_game_starts_before_the_start_or_after_the_end():
    state = joined(given(*opened(minutes=1)), "a", "b")
    refused(state, None, A.Pair(at_ms=START - 1), "arena.not_started")
    refused(state, None, A.Pair(at_ms=START + 60_000), "arena.closed")
    refused(state, None, A.Close(at_ms=START + 59_999), "arena.not_over_yet")


def test_games_running_at_the_end_finish_and_count_then_the_arena_ends():
    state = joined(given(*opened(minutes=1)), "a", "b", "c", "d")
    state, [paired] = apply(state, None, A.Pair(at_ms=START))
    state, closing = apply(state, None, A.Close(at_ms=START + 60_000))
    assert [type(e) for e in closing] == [A.ArenaClosed] and state.status == "closing"
    refused(state, "e", A.Join(name="late"), "arena.closed")
    state, _ = apply(state, None, A.RecordResult(game_id=paired.games[0].game_id, outcome=outcome([1, 2])))
    state, ending = apply(state, None, A.RecordResult(game_id=paired.games[1].game_id, outcome=outcome([2, 1])))
    assert [type(e) for e in ending] == [A.GameScored, T.TournamentEnded, T.SeedRevealed]  # the shared end
    assert state.status == "finished" and A.view(state).seed == state.seed
    assert [s.points for s in A.standings(state)] == [2, 2, 0, 0]
    refused(state, "a", A.Pause(), "arena.finished")


def test_an_aborted_game_scores_nothing_and_keeps_streaks():
    state = joined(given(*opened()), "a", "b")
    state, [paired] = apply(state, None, A.Pair(at_ms=START))
    state, [scored] = apply(state, None, A.RecordResult(game_id=paired.games[0].game_id, outcome=None))
    assert scored.aborted and scored.points == [0, 0]
    assert state.players["a"].games == 0 and state.players["a"].playing is None
    refused(state, None, A.RecordResult(game_id=paired.games[0].game_id, outcome=None),
            "arena.result_already_recorded")


def test_only_the_platform_pairs_closes_and_records():
    state = joined(given(*opened()), "a", "b")
    refused(state, "a", A.Pair(at_ms=START), "arena.not_platform")
    refused(state, "a", A.Close(at_ms=START + 10 ** 9), "arena.not_platform")
    assert A.decide(state, "admin", A.Pair(at_ms=START), admin=True)


def test_seeds_stay_secret_until_the_end():
    state = joined(given(*opened()), "a", "b")
    created = opened()[0]
    state, [paired] = apply(state, None, A.Pair(at_ms=START))
    assert A.redact(created, False).seed is None and A.redact(paired, False).games[0].seed is None
    assert A.view(state).seed is None
    assert A.redact(paired, True) == paired


def test_actions_offer_exactly_what_decide_accepts():
    state = joined(given(*opened()), "a", "b")
    assert A.actions(state, "a") == ["pause", "leave"]
    assert A.actions(state, "z") == ["join"]
    state, [paired] = apply(state, None, A.Pair(at_ms=START))
    assert f"berserk:{paired.games[0].game_id}" in A.actions(state, "a")


def test_events_survive_the_wire_codec():
    state = joined(given(*opened()), "a", "b")
    _, events = apply(state, None, A.Pair(at_ms=START))
    for event in [*opened(), *events]:
        assert A.decode_event(A.event_type(event), A.event_data(event)) == event


def test_the_organiser_enters_a_bot_who_then_plays_for_itself():
    state, [entered] = apply(given(*opened()), ORGANISER, A.Join(name="Greedy bot Ada", player_id="bot-1"))
    assert (entered.player_id, entered.by) == ("bot-1", ORGANISER)
    state = joined(state, "a")
    state, [paired] = apply(state, None, A.Pair(at_ms=START))
    assert set(paired.games[0].players) == {"bot-1", "a"}
    state, _ = apply(state, "bot-1", A.Pause())
    assert state.players["bot-1"].presence == "paused"


def test_only_the_organiser_enters_another_player():
    state = joined(given(*opened()), "a")
    refused(state, "a", A.Join(name="Bot", player_id="bot-1"), "arena.not_organiser")
    refused(state, ORGANISER, A.Join(name="A", player_id="a"), "arena.already_playing")
