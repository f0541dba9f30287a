"""Gold Mine decide, legal, to_act and outcome; tiles and movement here, the action phase in `rules_action.py`.

`refusal(state, seat, command)` is the one predicate per command (a
`RuleViolation` or None): `decide` requires it, and by definition `legal`
lists the candidate commands it lets through; they are built directly, without
asking `refusal` of each (`rules_listing.py`, tested against the definition in
tests/domain/goldmine/test_listing.py). A movement that ends with the pirate
(or team) out of the mine with enough coins also emits `PirateEscaped`; a
decision after which nobody can win any more ends the game with `DeadCaveFound`.
"""

from __future__ import annotations

from typing import assert_never

from domain.goldmine.board import (any_fits, entrance_pos, fits, fits_anywhere, has_chamber, neighbours,
                                   passes_entrance, reachable, secret_positions, spec, steps_home)
from domain.goldmine.commands import (Challenge, EndTurn, Explore, GoldmineCommand, LeaveCoin, Move, PassCoins,
                                      PlaceCoin, PlaceTile, Roll, SecretPassage, Stay, TakeCoin)
from domain.goldmine.draws import draw_scout, draw_stack
from domain.goldmine.events import (DeadCaveFound, DiceRolled, GoldmineEvent, PirateEscaped, PirateMoved, Stayed,
                                    TileDrawn, TilePlaced)
from domain.goldmine.evolve import evolve
from domain.goldmine.rules_action import CAVE_CHANGES, action_events, action_refusal, dead_cave
from domain.goldmine.rules_listing import MOVE_PHASES, listing
from domain.goldmine.state import GoldmineState, cells, partner, position, team, team_coins
from domain.kernel import Emitter, Outcome, Rng, RuleViolation, ranked, require

Pos = tuple[int, int, int]


def to_act(state: GoldmineState) -> frozenset[int]:
    """Who must act: the player in turn, or the seat owing a mid-turn decision."""
    if state.over:
        return frozenset()
    if state.phase in ("bet_coin", "bats_move"):
        return frozenset({state.chooser})
    return frozenset({state.current})


def on_secret(state: GoldmineState) -> bool:
    """Whether the player in turn stands on a secret-passage entrance."""
    x, y, path = position(state.pirates[state.current])
    return spec(cells(state)[(x, y)], path).secret


_LAST_DESTINATIONS: list = [None, []]
"""The last state asked and its destinations: `decide` (a Move) and the view ask again for the state `legal` listed."""


def destinations(state: GoldmineState) -> list[Pos]:
    """Every Move target in the current phase (Stay is always the other choice); not to be changed."""
    if _LAST_DESTINATIONS[0] is not state:
        _LAST_DESTINATIONS[:] = [state, _destinations(state)]
    return _LAST_DESTINATIONS[1]


def _destinations(state: GoldmineState) -> list[Pos]:
    board = cells(state)
    here = position(state.pirates[state.mover])
    if state.phase == "step":
        return [p for p in neighbours(board, here) if (p[0], p[1]) == state.last_placed]
    if state.phase == "secret":
        return [p for p in secret_positions(board) if p != here]
    if state.phase in ("roll_move", "bonus", "bats_move"):
        return reachable(board, here, state.die, state.options.mud)
    return []


def _phase(state: GoldmineState, phases: tuple[str, ...], message: str) -> RuleViolation | None:
    return None if state.phase in phases else RuleViolation("goldmine.wrong_phase", message)


def place_refusal(state: GoldmineState, command: PlaceTile) -> RuleViolation | None:
    """Why the drawn tile may not go at (x, y, rotation) (None: it may)."""
    if state.phase not in ("scout", "place") or state.drawn is None:
        return RuleViolation("goldmine.wrong_phase", "there is no drawn tile to place")
    if not 0 <= command.rotation < 4 or not fits(cells(state), state.drawn, command.x, command.y,
                                                  command.rotation):
        return RuleViolation("goldmine.tile_does_not_fit",
                             "the tile must touch the cave on an empty cell with every side matching")
    return None


def explore_refusal(state: GoldmineState, seat: int, tile: str | None) -> RuleViolation | None:
    """Why `seat` may not explore with `tile` (None: draw from the stack) now (None: it may)."""
    if refusal := _phase(state, ("move",), "explore at the start of your turn"):
        return refusal
    board = cells(state)
    if tile is None:
        if not any_fits(board, state.hidden.stack):
            return RuleViolation("goldmine.nothing_to_explore", "no tile left in the stack fits anywhere")
        return None
    if not state.hands or tile not in state.hands[seat]:
        return RuleViolation("goldmine.not_in_hand", "that tile is not among your five tiles")
    if not fits_anywhere(board, tile):
        return RuleViolation("goldmine.tile_does_not_fit", "that tile fits nowhere")
    return None


def move_refusal(state: GoldmineState, target: Pos) -> RuleViolation | None:
    """Why the pirate being moved may not go to `target` now (None: it may)."""
    if refusal := _phase(state, MOVE_PHASES, "there is no move to make now"):
        return refusal
    if target not in destinations(state):
        code = {"step": "goldmine.not_connected", "secret": "goldmine.not_a_secret_passage"}.get(
            state.phase, "goldmine.too_far")
        return RuleViolation(code, "that position cannot be reached by this move")
    return None


def refusal(state: GoldmineState, seat: int, command: GoldmineCommand) -> RuleViolation | None:
    """Why `seat` may not send `command` now (None: it may); `decide` and `legal` both ask this."""
    if state.over:
        return RuleViolation("goldmine.game_over", "the game is over")
    if seat not in to_act(state):
        return RuleViolation("goldmine.not_your_turn", "another seat must act now")
    match command:
        case PlaceTile():
            return place_refusal(state, command)
        case Explore():
            return explore_refusal(state, seat, command.tile)
        case Roll():
            return _phase(state, ("move",), "roll at the start of your turn")
        case SecretPassage():
            if err := _phase(state, ("move",), "the secret passage is a movement at the start of your turn"):
                return err
            if not on_secret(state):
                return RuleViolation("goldmine.not_on_secret_passage", "you do not stand on a secret passage")
            return None
        case Stay():
            return _phase(state, ("move", *MOVE_PHASES), "there is no movement to skip now")
        case Move():
            return move_refusal(state, (command.x, command.y, command.path))
        case TakeCoin() | Challenge() | PlaceCoin() | LeaveCoin() | PassCoins() | EndTurn():
            return action_refusal(state, command)
        case _:
            assert_never(command)


def legal(state: GoldmineState, seat: int) -> list[GoldmineCommand]:
    """Every command `seat` may send now ([] when it may not act): by definition the candidates `refusal`
    lets through (see tests/domain/goldmine/test_listing.py), built directly by `rules_listing`."""
    if seat not in to_act(state):
        return []
    if state.phase in MOVE_PHASES:
        return [*(Move(*p) for p in destinations(state)), Stay()]
    return listing(state, seat)


def decide(state: GoldmineState, seat: int, command: GoldmineCommand, rng: Rng) -> list[GoldmineEvent]:
    """The events of `command` by `seat`, or RuleViolation; a game nobody can win any more ends at once."""
    require(refusal(state, seat, command))
    emit = Emitter(evolve, state)
    after = emit(*_events(state, seat, command, rng))
    if any(isinstance(e, CAVE_CHANGES) for e in emit.events) and dead_cave(after):
        emit(DeadCaveFound(turns=after.turns))
    return emit.events


def _events(state: GoldmineState, seat: int, command: GoldmineCommand, rng: Rng) -> list[GoldmineEvent]:
    match command:
        case PlaceTile():
            assert state.drawn is not None, "place_refusal lets a placement through only with a drawn tile"
            placed = TilePlaced(seat=seat, tile=state.drawn, x=command.x, y=command.y,
                                rotation=command.rotation, coin=has_chamber(state.drawn))
            return [placed, *draw_scout(evolve(state, placed), rng)] if state.phase == "scout" else [placed]
        case Explore():
            if command.tile is None:
                return draw_stack(state, seat, rng)
            return [TileDrawn(seat=seat, tile=command.tile, source="hand")]
        case Roll():
            return [DiceRolled(seat=seat, dice=[rng.die()], purpose="move")]
        case SecretPassage():
            return [DiceRolled(seat=seat, dice=[rng.die(), rng.die()], purpose="secret")]
        case Stay():
            return [Stayed(seat=state.mover, by=seat), *_escape(state, position(state.pirates[state.mover]))]
        case Move():
            target = (command.x, command.y, command.path)
            return [PirateMoved(seat=state.mover, x=target[0], y=target[1], path=target[2], by=seat),
                    *_escape(state, target)]
        case TakeCoin() | Challenge() | PlaceCoin() | LeaveCoin() | PassCoins() | EndTurn():
            return action_events(state, command, rng)
        case _:
            assert_never(command)


def _escape(state: GoldmineState, end: Pos) -> list[GoldmineEvent]:
    """PirateEscaped when the mover's own movement ends with enough coins out of the mine."""
    if state.phase == "bats_move" or state.mover != state.current:
        return []
    seat, gate = state.current, entrance_pos()
    if team_coins(state, seat) < state.target:
        return []
    ally = partner(state, seat)
    if ally is not None:
        together = end == gate and position(state.pirates[ally]) == gate
        return [PirateEscaped(seats=list(team(state, seat)))] if together else []
    if state.phase in ("roll_move", "bonus"):
        out = passes_entrance(cells(state), state.origin, end, state.die, state.options.mud)
    else:
        out = gate in (state.origin, end)
    return [PirateEscaped(seats=[seat])] if out else []


def outcome(state: GoldmineState) -> Outcome | None:
    """None while running; then winners first, then (team) coins, then fewest steps home.

    The stall guard (`capped`) and a dead cave (`dead_cave`) end the game without a winner.
    """
    if not state.over:
        return None
    board = cells(state)
    home = [steps_home(board, position(p)) for p in state.pirates]
    keys = [(1 if s in state.winners else 0, team_coins(state, s), -sum(home[t] for t in team(state, s)))
            for s in range(state.seats)]
    result = ranked([p.coins for p in state.pirates], keys)
    details = {"capped": state.capped, "dead_cave": state.dead_cave, "turns": state.turns, "steps_home": home}
    if state.options.alliances:
        details["teams"] = [list(t) for t in sorted({team(state, s) for s in range(state.seats)})]
    return Outcome(scores=result.scores, ranks=result.ranks, winners=result.winners, details=details)

