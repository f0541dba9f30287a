"""Gold Mine decide and legal for tiles and movement; the action phase is in `actions.py`.

`legal` and `decide` share one predicate per command: `placements_now`,
`explore_choices`, `destinations` (every Move target of the phase) and the
action predicates. A movement that ends with the pirate (or team) out of the
mine with enough coins also emits `PirateEscaped`.
"""

from __future__ import annotations

from domain.goldmine import actions
from domain.goldmine.board import (entrance_pos, fits, fitting, has_chamber, neighbours, passes_entrance,
                                   placements, reachable, secret_positions, spec)
from domain.goldmine.commands import (Challenge, EndTurn, Explore, GoldmineCommand, Move, PassCoins, PlaceCoin,
                                      PlaceTile, Roll, SecretPassage, Stay, TakeCoin)
from domain.goldmine.components import ALL_TILES, ENTRANCE, design
from domain.goldmine.events import (DiceRolled, GoldmineEvent, PirateEscaped, PirateMoved, Stayed, TileDrawn,
                                    TilePlaced)
from domain.goldmine.setup import draw_scout, draw_stack, fold
from domain.goldmine.state import GoldmineState, cells, partner, position, team, team_coins
from domain.kernel import Rng, RuleViolation

Pos = tuple[int, int, int]
MOVE_PHASES = ("step", "roll_move", "secret", "bonus", "bats_move")


def to_act(state: GoldmineState) -> frozenset[int]:
    """Who must act: the player in turn, or the seat owing a mid-turn decision."""
    if state.over:
        return frozenset()
    if state.phase in ("bet_coin", "bats_move"):
        return frozenset({state.chooser})
    return frozenset({state.current})


def placements_now(state: GoldmineState) -> list[tuple[int, int, int]]:
    """Every (x, y, rotation) for the drawn tile."""
    if state.drawn is None or state.phase not in ("scout", "place"):
        return []
    return placements(cells(state), state.drawn)


def explore_choices(state: GoldmineState) -> list[str | None]:
    """None (draw from the stack) if some stack tile fits, and each fitting hand tile."""
    board = cells(state)
    out: list[str | None] = [None] if fitting(board, state.hidden.stack) else []
    hand = state.hands[state.current] if state.hands else ()
    return out + sorted(fitting(board, hand))


def on_secret(state: GoldmineState) -> bool:
    """Whether the player in turn stands on a secret-passage entrance."""
    x, y, path = position(state.pirates[state.current])
    return spec(cells(state)[(x, y)], path).secret


def destinations(state: GoldmineState) -> list[Pos]:
    """Every Move target in the current phase (Stay is always the other choice)."""
    board = cells(state)
    here = position(state.pirates[state.mover])
    if state.phase == "step":
        return [p for p in neighbours(board, here) if (p[0], p[1]) == state.last_placed]
    if state.phase == "secret":
        return [p for p in secret_positions(board) if p != here]
    if state.phase in ("roll_move", "bonus", "bats_move"):
        return reachable(board, here, state.die, state.options.mud)
    return []


def legal(state: GoldmineState, seat: int) -> list[GoldmineCommand]:
    """Every command `seat` may send now ([] when it may not act)."""
    if seat not in to_act(state):
        return []
    phase = state.phase
    if phase in ("scout", "place"):
        return [PlaceTile(x, y, r) for x, y, r in placements_now(state)]
    if phase == "move":
        out: list[GoldmineCommand] = [Explore(tile) for tile in explore_choices(state)]
        out.append(Roll())
        if on_secret(state):
            out.append(SecretPassage())
        return out + [Stay()]
    if phase in MOVE_PHASES:
        return [*(Move(*p) for p in destinations(state)), Stay()]
    if phase == "bet_coin":
        return [PlaceCoin(x, y) for x, y in actions.free_chambers(state, state.current, state.duelist)]
    out = [TakeCoin()] if actions.take_coin_refusal(state) is None else []
    if phase == "action":
        out += actions.challenges(state)
        out += [PassCoins(n) for n in actions.pass_amounts(state)]
    return out + [EndTurn()]


def decide(state: GoldmineState, seat: int, command: GoldmineCommand, rng: Rng) -> list[GoldmineEvent]:
    """The events of `command` by `seat`, or RuleViolation."""
    if state.over:
        raise RuleViolation("goldmine.game_over", "the game is over")
    if seat not in to_act(state):
        raise RuleViolation("goldmine.not_your_turn", "another seat must act now")
    match command:
        case PlaceTile():
            return _place(state, seat, command, rng)
        case Explore():
            return _explore(state, seat, command.tile, rng)
        case Roll():
            _in_phase(state, "move", "roll at the start of your turn")
            return [DiceRolled(seat=seat, dice=[rng.die()], purpose="move")]
        case SecretPassage():
            _in_phase(state, "move", "the secret passage is a movement at the start of your turn")
            if not on_secret(state):
                raise RuleViolation("goldmine.not_on_secret_passage", "you do not stand on a secret passage")
            return [DiceRolled(seat=seat, dice=[rng.die(), rng.die()], purpose="secret")]
        case Stay():
            if state.phase != "move" and state.phase not in MOVE_PHASES:
                raise RuleViolation("goldmine.wrong_phase", "there is no movement to skip now")
            return [Stayed(seat=state.mover), *_escape(state, position(state.pirates[state.mover]))]
        case Move():
            return _move(state, seat, (command.x, command.y, command.path))
        case TakeCoin():
            return actions.take_coin(state)
        case Challenge():
            return actions.challenge(state, command, rng)
        case PlaceCoin():
            return actions.place_coin(state, command.x, command.y)
        case PassCoins():
            return actions.pass_coins(state, command.amount)
        case EndTurn():
            return actions.end_turn(state)
    raise RuleViolation("goldmine.unknown_command", f"not a goldmine command: {command!r}")


def _in_phase(state: GoldmineState, phase: str, message: str) -> None:
    if state.phase != phase:
        raise RuleViolation("goldmine.wrong_phase", message)


def _place(state: GoldmineState, seat: int, command: PlaceTile, rng: Rng) -> list[GoldmineEvent]:
    if state.phase not in ("scout", "place") or state.drawn is None:
        raise RuleViolation("goldmine.wrong_phase", "there is no drawn tile to place")
    if not 0 <= command.rotation < 4 or not fits(cells(state), state.drawn, command.x, command.y,
                                                  command.rotation):
        raise RuleViolation("goldmine.tile_does_not_fit",
                            "the tile must touch the cave on an empty cell with every side matching")
    events: list[GoldmineEvent] = [TilePlaced(seat=seat, tile=state.drawn, x=command.x, y=command.y,
                                              rotation=command.rotation, coin=has_chamber(state.drawn))]
    if state.phase == "scout":
        events += draw_scout(fold(state, events), rng)
    return events


def _explore(state: GoldmineState, seat: int, tile: str | None, rng: Rng) -> list[GoldmineEvent]:
    _in_phase(state, "move", "explore at the start of your turn")
    choices = explore_choices(state)
    if tile is None:
        if None not in choices:
            raise RuleViolation("goldmine.nothing_to_explore", "no tile left in the stack fits anywhere")
        return draw_stack(state, seat, rng)
    if not state.hands or tile not in state.hands[seat]:
        raise RuleViolation("goldmine.not_in_hand", "that tile is not among your five tiles")
    if tile not in choices:
        raise RuleViolation("goldmine.tile_does_not_fit", "that tile fits nowhere")
    return [TileDrawn(seat=seat, tile=tile, source="hand")]


def _move(state: GoldmineState, seat: int, target: Pos) -> list[GoldmineEvent]:
    if state.phase not in MOVE_PHASES:
        raise RuleViolation("goldmine.wrong_phase", "there is no move to make now")
    if target not in destinations(state):
        code = {"step": "goldmine.not_connected", "secret": "goldmine.not_a_secret_passage"}.get(
            state.phase, "goldmine.too_far")
        raise RuleViolation(code, "that position cannot be reached by this move")
    moved = PirateMoved(seat=state.mover, x=target[0], y=target[1], path=target[2], by=seat)
    return [moved, *_escape(state, target)]


def _escape(state: GoldmineState, end: Pos) -> list[GoldmineEvent]:
    """PirateEscaped when the mover's own movement ends with enough coins out of the mine."""
    if state.phase in ("bats_move",) or state.mover != state.current:
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


def check_invariants(state: GoldmineState) -> None:
    """AssertionError when the state breaks a rule of the components (for the random-play harness)."""
    held = [c.tile for c in state.board] + list(state.hidden.stack) + list(state.hidden.scout)
    held += [t for hand in state.hands for t in hand] + ([state.drawn] if state.drawn else [])
    assert sorted(held) == sorted(ALL_TILES), "every tile is in exactly one place"
    board = cells(state)
    assert len(board) == len(state.board), "one tile per cell"
    chambers = sum(1 for c in state.board if has_chamber(c.tile))
    coins = sum(p.coins for p in state.pirates) + sum(1 for c in state.board if c.coin)
    assert coins == chambers, "each placed chamber brought one coin, none is lost or made"
    assert all(not c.coin or has_chamber(c.tile) for c in state.board), "coins lie only on chambers"
    for pirate in state.pirates:
        cell = board.get((pirate.x, pirate.y))
        assert cell is not None and 0 <= pirate.path < len(design(cell.tile).paths), "pirates stand on a path"
        assert 0 <= pirate.bets <= 3 and 0 <= pirate.bats <= 3 and pirate.coins >= 0
    for cell in state.board:
        if cell.tile != ENTRANCE:
            others = {k: v for k, v in board.items() if k != (cell.x, cell.y)}
            assert fits(others, cell.tile, cell.x, cell.y, cell.rotation), f"{cell.tile} matches its neighbours"
