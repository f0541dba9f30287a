"""Tikal bound into the `domain.kernel.Game` protocol as `GAME`.

Options: `variant` (standard draw or the tactical auction) and `edition`
(original or Classic board and tie-break), plus `random_first` for the
creator who wants the first seat drawn by the Rng.
"""

from __future__ import annotations

from typing import Annotated, Literal, Optional

import msgspec

from domain.kernel import Outcome, Rng, RuleViolation, ranked
from domain.tikal import flow
from domain.tikal.commands import TikalCommand
from domain.tikal.events import TikalEvent
from domain.tikal.evolve import evolve
from domain.tikal.state import TikalState, controller
from domain.tikal.view import redact, view


class TikalOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    variant: Annotated[Literal["standard", "auction"], msgspec.Meta(
        description="standard: draw the next tile each turn; auction: the tactical version, the revealed tiles "
                    "are auctioned for victory points (everybody starts with 20)")] = "standard"
    edition: Annotated[Literal["original", "classic"], msgspec.Meta(
        description="original: the Ravensburger rules; classic: the 2018 Tikal Classic board (printed volcano, "
                    "volcano-next-to-volcano rule) and its tie-break (highest guarded temple)")] = "original"
    random_first: Annotated[bool, msgspec.Meta(
        description="draw the first player at random instead of seat 0")] = False


CODES = {
    "tikal.bad_options": "the options do not fit this game",
    "tikal.game_over": "the game is over",
    "tikal.not_your_turn": "another seat must act now",
    "tikal.wrong_phase": "this command does not fit the current phase (place, actions, auction, take)",
    "tikal.bad_rotation": "a rotation is 0 to 5 clockwise steps",
    "tikal.no_such_space": "the coordinates are not a board space / hold no placed tile",
    "tikal.space_taken": "a tile already lies there",
    "tikal.not_adjacent": "a tile must go next to a placed tile",
    "tikal.tile_needs_path": "a non-volcano tile must form a path with a neighbouring non-volcano tile",
    "tikal.volcano_cuts_off": "classic: a volcano next to a volcano may not cut spaces off from the base camp",
    "tikal.not_enough_action_points": "the action costs more AP than are left this turn",
    "tikal.not_a_camp": "new pieces and camp moves use only the base camp and your own camps",
    "tikal.no_piece_left": "no such piece left in your supply",
    "tikal.no_piece_there": "you have no (such) piece on that space",
    "tikal.same_space": "a move must go to another space",
    "tikal.no_path": "no path of stones joins the spaces (volcanoes block)",
    "tikal.not_a_temple": "the space is not a temple",
    "tikal.temple_guarded": "the temple is guarded: no more levels, no second guard",
    "tikal.third_level_this_turn": "at most 2 levels per temple per turn",
    "tikal.needs_fresh_piece": "each level or treasure needs a different piece of yours on the tile",
    "tikal.no_level_left": "the next level's number is not in the supply (or the temple is at 10)",
    "tikal.no_treasure_there": "there is no face-down treasure there",
    "tikal.third_dig_this_turn": "at most 2 treasures per ruins per turn",
    "tikal.bad_trade": "a trade is with another seat, for a different kind",
    "tikal.not_single_treasure": "a traded token must be the only one of its kind its owner holds",
    "tikal.not_a_clearing": "camps go on clearings or emptied ruins",
    "tikal.camp_exists": "the clearing already has a camp",
    "tikal.no_camp_left": "you built both your camps",
    "tikal.no_guard_left": "you placed both your guards",
    "tikal.not_majority": "a guard needs strict majority on the temple (leader 3, explorer 1)",
    "tikal.bid_too_low": "a bid must be at least 1 and above the current bid",
    "tikal.bid_too_high": "a bid may not exceed your score",
    "tikal.not_revealed": "the tile is not among the revealed tiles",
}


def _tie_keys(state: TikalState, seat: int) -> tuple[int, int]:
    temples = [s for s in state.board if s.kind == "temple"]
    if state.edition == "classic":
        best = max((s.value for s in temples if s.guard == seat), default=0)
    else:
        best = max((s.value for s in temples if controller(s) == seat), default=0)
    return best, sum(state.players[seat].treasures)


class Tikal:
    kind = "tikal"
    title = "Tikal"
    codes = CODES
    min_players = 2
    max_players = 4
    options_type = TikalOptions
    command_type = TikalCommand
    state_type = TikalState
    event_type = TikalEvent

    def setup(self, options: TikalOptions, seats: int, rng: Rng) -> list[TikalEvent]:
        if not self.min_players <= seats <= self.max_players:
            raise RuleViolation("tikal.bad_options", f"Tikal is for 2-4 players, not {seats}")
        first = rng.below(seats) if options.random_first else 0
        start = 20 if options.variant == "auction" else 0
        return flow.setup_events(options.variant, options.edition, seats, first, start, rng)

    def evolve(self, state: Optional[TikalState], event: TikalEvent) -> TikalState:
        return evolve(state, event)

    def decide(self, state: TikalState, seat: int, command: TikalCommand, rng: Rng) -> list[TikalEvent]:
        return flow.decide(state, seat, command, rng)

    def legal(self, state: TikalState, seat: int) -> list[TikalCommand]:
        return flow.legal(state, seat)

    def to_act(self, state: TikalState) -> frozenset[int]:
        return flow.to_act(state)

    def view(self, state: TikalState, seat: Optional[int]):
        return view(state, seat)

    def redact(self, event: TikalEvent, seat: Optional[int]) -> TikalEvent:
        return redact(event, seat)

    def outcome(self, state: TikalState) -> Optional[Outcome]:
        if state.phase != "over":
            return None
        scores = [p.score for p in state.players]
        keys = [(scores[s], *_tie_keys(state, s)) for s in range(state.seats)]
        result = ranked(scores, keys)
        details = {"scorings": state.scorings, "tie_break": [list(_tie_keys(state, s)) for s in range(state.seats)]}
        return msgspec.structs.replace(result, details=details)


GAME = Tikal()
