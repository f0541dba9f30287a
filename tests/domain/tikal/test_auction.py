"""The tactical auction variant (tikal.md "Auction variant"; rulebook "ТАКТИЧЕСКАЯ ВЕРСИЯ")."""

from domain.kernel import Rng
from domain.tikal.commands import Bid, EndTurn, Pass, PlaceTile, TakeTile
from domain.tikal.events import AuctionOpened, AuctionWon, ScoringRoundStarted, TilesRevealed
from domain.tikal.game import GAME
from domain.tikal.options import TikalOptions

from tests.domain.tikal.support import opening
from tests.support.rules import given, refused, when


def auction(seats: int, stack: list[str], reveal: int | None = None):
    reveal = seats if reveal is None else reveal
    return given(GAME, *opening(seats=seats, stack=stack, variant="auction", start_score=20),
                 TilesRevealed(tiles=stack[:reveal]), AuctionOpened(bidders=list(range(seats))))


def test_setup_gives_twenty_points_and_reveals_one_tile_per_player():
    events = GAME.setup(TikalOptions(variant="auction"), 3, Rng(b"x", 0))
    state = given(GAME, *events)
    assert [p.score for p in state.players] == [20, 20, 20] and all(p.totem for p in state.players)
    assert len(state.revealed) == 3 and state.phase == "auction" and GAME.to_act(state) == frozenset({0})
    assert all(t.startswith("A") for t in state.revealed)


def test_bids_go_in_turn_a_pass_is_final_and_the_last_bidder_pays():
    """Rulebook example: Андрей 1, Анастасия 2, Сергей пас, Мария 3 ... Анастасия pays 5."""
    state = auction(3, ["A1", "A3", "A4", "A6"])
    state, _ = when(GAME, state, 0, Bid(1))
    refused(GAME, state, 0, Bid(2), "tikal.not_your_turn")
    refused(GAME, state, 1, Bid(1), "tikal.bid_too_low")
    refused(GAME, state, 1, Bid(21), "tikal.bid_too_high")
    state, _ = when(GAME, state, 1, Bid(2))
    state, _ = when(GAME, state, 2, Pass())
    state, _ = when(GAME, state, 0, Bid(4))
    state, events = when(GAME, state, 1, Pass())
    assert events[-1] == AuctionWon(seat=0, price=4, free=False)
    assert state.players[0].score == 16 and state.phase == "take"
    refused(GAME, state, 0, TakeTile("A6"), "tikal.not_revealed")
    state, _ = when(GAME, state, 0, TakeTile("A4"))
    state, _ = when(GAME, state, 0, PlaceTile(1, -2, 0))
    state, events = when(GAME, state, 0, EndTurn())
    assert events[-1] == AuctionOpened(bidders=[1, 2])  # the next auction opens left of the one who played
    assert state.players[0].totem is False


def test_when_everybody_passes_the_first_to_pass_takes_a_tile_free_and_the_last_totem_takes_the_last_tile():
    """Rulebook: "жетон территории бесплатно достанется первому спасовавшему"; "Последний игрок ходит, не тратя"."""
    state = auction(2, ["A1", "A3", "A4", "A6"])
    state, _ = when(GAME, state, 0, Pass())
    state, events = when(GAME, state, 1, Pass())
    assert events[-1] == AuctionWon(seat=0, price=0, free=True)
    state, _ = when(GAME, state, 0, TakeTile("A3"))
    state, _ = when(GAME, state, 0, PlaceTile(1, -2, 0))
    state, events = when(GAME, state, 0, EndTurn())
    assert events[-1] == AuctionWon(seat=1, price=0, free=True)
    assert GAME.legal(state, 1) == [TakeTile("A1")]
    state, _ = when(GAME, state, 1, TakeTile("A1"))
    state, _ = when(GAME, state, 1, PlaceTile(2, -2, 1))
    state, events = when(GAME, state, 1, EndTurn())
    assert events[-2] == TilesRevealed(tiles=["A4", "A6"]) and events[-1] == AuctionOpened(bidders=[0, 1])
    assert all(p.totem for p in state.players) and [p.score for p in state.players] == [20, 20]


def test_a_volcano_won_at_auction_scores_first_without_turning_totems():
    """Rulebook: the taker plays 10 AP and scores, then the others; "Тотемы никто из игроков пока не переворачивает"."""
    state = auction(2, ["B1", "A1", "A3"])
    state, _ = when(GAME, state, 0, Pass())
    state, _ = when(GAME, state, 1, Bid(3))
    state, events = when(GAME, state, 1, TakeTile("B1"))
    assert events[-1] == ScoringRoundStarted(kind="volcano", order=[1, 0], number=1)
    state, _ = when(GAME, state, 1, EndTurn())
    state, _ = when(GAME, state, 0, EndTurn())
    assert state.phase == "place" and state.current == 1 and all(p.totem for p in state.players)
    state, _ = when(GAME, state, 1, PlaceTile(1, -2, 0))
    state, events = when(GAME, state, 1, EndTurn())
    assert state.players[1].totem is False and events[-1] == AuctionWon(seat=0, price=0, free=True)


def test_the_final_auction_scoring_goes_lowest_score_first():
    """Rulebook: "игрок с наименьшим количеством будет подсчитываться первым"."""
    state = auction(3, ["A1"], reveal=1)
    state, _ = when(GAME, state, 0, Bid(2))
    state, _ = when(GAME, state, 1, Pass())
    state, events = when(GAME, state, 2, Pass())
    state, _ = when(GAME, state, 0, TakeTile("A1"))
    state, _ = when(GAME, state, 0, PlaceTile(1, -2, 0))
    state, events = when(GAME, state, 0, EndTurn())
    assert events[-1] == ScoringRoundStarted(kind="final", order=[0, 1, 2], number=1)
    state = auction(3, ["A1"], reveal=1)
    state, _ = when(GAME, state, 0, Pass())
    state, _ = when(GAME, state, 1, Bid(5))
    state, _ = when(GAME, state, 2, Pass())
    state, _ = when(GAME, state, 1, TakeTile("A1"))
    state, _ = when(GAME, state, 1, PlaceTile(1, -2, 0))
    state, events = when(GAME, state, 1, EndTurn())
    assert events[-1] == ScoringRoundStarted(kind="final", order=[1, 2, 0], number=1)  # 15, then ties from the left
