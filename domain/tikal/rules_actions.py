"""The `actions` phase (10 AP): one predicate per action, shared by `decide` and `legal`.

`action_refusal(state, seat, command)` says why an action may not be taken
now (None = allowed, its cost included); `action_events` turns an allowed one
into its event; `legal_actions` lists exactly what the predicate allows. "A different one of your pieces for each level" (and each dig) is
judged by piece: `TikalState.acted` records which piece acted on which tile
this phase, and only a piece of yours on the tile that has not acted there may
act (see `state.actor` for which one does). A move walks a fresh explorer
unless it names, by id, one that has acted this phase.
"""

from __future__ import annotations

from typing import Optional

from domain.kernel import RuleViolation
from domain.tikal.commands import (BuildCamp, CampMove, DigTreasure, EndTurn, EnterPiece, MovePiece, PlaceGuard,
                                   TikalCommand, TradeTreasure, UncoverLevel)
from domain.tikal.components import CAMPS, GUARDS, MAX_LEVEL, TREASURE_KINDS
from domain.tikal.events import (CampBuilt, GuardPlaced, LevelUncovered, PieceEntered, PieceMoved, TikalEvent,
                                 TreasureDug, TreasureTraded)
from domain.tikal.state import (LEADER, Space, TikalState, acted_here, actor, board_map, is_camp_of, majority,
                                named_walkers, next_explorer, pieces, pieces_on, reach, reach_in_order, walker)

COSTS = {"enter": 1, "camp_move": 1, "uncover": 2, "dig": 3, "trade": 3, "camp": 5, "guard": 5}
Move = MovePiece | CampMove
Act = UncoverLevel | DigTreasure


def _space(state: TikalState, q: int, r: int) -> Space | RuleViolation:
    space = board_map(state).get((q, r))
    return space if space is not None else RuleViolation("tikal.no_such_space", f"no placed tile on ({q}, {r})")


def _ap(state: TikalState, cost: int) -> RuleViolation | None:
    if cost > state.ap:
        return RuleViolation("tikal.not_enough_action_points", f"this costs {cost} AP, {state.ap} left")
    return None


def moving_piece(state: TikalState, seat: int, start: Space, cmd: Move) -> Optional[int]:
    """The piece `cmd` walks off `start`, or None when `seat` has no such piece there."""
    if cmd.leader:
        return LEADER if cmd.explorer is None and start.leaders[seat] else None
    if cmd.explorer is None:
        return walker(state, seat, start)
    return cmd.explorer if cmd.explorer in named_walkers(state, seat, start) else None


def move_cost(state: TikalState, cmd: Move) -> Optional[int]:
    """What the move costs (None: no path); call only when both spaces hold tiles."""
    if isinstance(cmd, CampMove):
        return COSTS["camp_move"]
    return reach(state.board, (cmd.from_q, cmd.from_r)).get((cmd.to_q, cmd.to_r))


def _move(state: TikalState, seat: int, cmd: Move) -> RuleViolation | None:
    start, target = _space(state, cmd.from_q, cmd.from_r), _space(state, cmd.to_q, cmd.to_r)
    for found in (start, target):
        if isinstance(found, RuleViolation):
            return found
    assert isinstance(start, Space) and isinstance(target, Space)
    if isinstance(cmd, CampMove) and not (is_camp_of(start, seat) and is_camp_of(target, seat)):
        return RuleViolation("tikal.not_a_camp", "camp moves join the base camp and your own camps only")
    if moving_piece(state, seat, start, cmd) is None:
        return RuleViolation("tikal.no_piece_there", f"no such piece of yours on ({start.q}, {start.r}): a fresh "
                                                     "explorer walks unnamed, one that acted this turn by its id")
    if start is target:
        return RuleViolation("tikal.same_space", "a move must go somewhere else")
    cost = move_cost(state, cmd)
    if cost is None:
        return RuleViolation("tikal.no_path", "no path of stones leads there (volcanoes block)")
    return _ap(state, cost)


def _enter(state: TikalState, seat: int, cmd: EnterPiece) -> RuleViolation | None:
    space = _space(state, cmd.q, cmd.r)
    if isinstance(space, RuleViolation):
        return space
    if not is_camp_of(space, seat):
        return RuleViolation("tikal.not_a_camp", "new pieces enter on the base camp or your own camps")
    player = state.players[seat]
    if (player.leader != "supply") if cmd.leader else player.explorers == 0:
        return RuleViolation("tikal.no_piece_left", "no such piece left in your supply")
    return _ap(state, COSTS["enter"])


def acting_piece(state: TikalState, seat: int, space: Space, cmd: Act) -> Optional[int]:
    """The piece `cmd` acts with on `space` (named, else `state.actor`'s default), or None when
    `seat` has no such piece there that has not acted there this phase."""
    if not cmd.leader and cmd.explorer is None:
        return actor(state, seat, space)
    if cmd.leader == (cmd.explorer is not None) or (cmd.explorer is not None and cmd.explorer < 1):
        return None  # both named, or an explorer id that names no explorer
    piece = LEADER if cmd.leader else cmd.explorer
    return piece if piece in pieces_on(space, seat) and piece not in acted_here(state, space.q, space.r) else None


def _act(state: TikalState, seat: int, space: Space, cmd: Act, limit_code: str, what: str) -> RuleViolation | None:
    """At most 2 per tile per phase, each by a different piece of yours on the tile."""
    if pieces(space, seat) == 0:
        return RuleViolation("tikal.no_piece_there", f"you need a piece on ({space.q}, {space.r})")
    if len(acted_here(state, space.q, space.r)) >= 2:
        return RuleViolation(limit_code, f"at most 2 {what} per turn")
    if actor(state, seat, space) is None:
        return RuleViolation("tikal.needs_fresh_piece", "each one needs a different piece of yours on the tile: "
                                                        "every piece of yours there already acted there this turn")
    if acting_piece(state, seat, space, cmd) is None:
        return RuleViolation("tikal.needs_fresh_piece", "the named piece is not yours on this tile, or it "
                                                        "already acted there this turn")
    return None


def _first(*rules: tuple[bool, str, str]) -> RuleViolation | None:
    """The refusal of the first rule broken, each given as (broken, code, message)."""
    return next((RuleViolation(code, message) for broken, code, message in rules if broken), None)


def _tile(state: TikalState, q: int, r: int, kind: str, code: str, message: str) -> Space | RuleViolation:
    """The placed tile on (q, r) if it is of `kind`, else the refusal."""
    space = _space(state, q, r)
    return space if isinstance(space, RuleViolation) or space.kind == kind else RuleViolation(code, message)


def _uncover(state: TikalState, seat: int, cmd: UncoverLevel) -> RuleViolation | None:
    space = _tile(state, cmd.q, cmd.r, "temple", "tikal.not_a_temple", "only temples have levels")
    if isinstance(space, RuleViolation):
        return space
    nxt = space.value + 1
    return (_first((space.guard is not None, "tikal.temple_guarded", "a guarded temple can no longer be raised"))
            or _act(state, seat, space, cmd, "tikal.third_level_this_turn", "levels per temple")
            or _first((nxt > MAX_LEVEL or state.levels[nxt - 2] == 0, "tikal.no_level_left",
                       f"no temple level {nxt} is left in the supply"))
            or _ap(state, COSTS["uncover"]))


def _dig(state: TikalState, seat: int, cmd: DigTreasure) -> RuleViolation | None:
    space = _tile(state, cmd.q, cmd.r, "ruins", "tikal.no_treasure_there", "there is no treasure to dig there")
    if isinstance(space, RuleViolation):
        return space
    return (_act(state, seat, space, cmd, "tikal.third_dig_this_turn", "treasures per ruins")
            or _ap(state, COSTS["dig"]))


def _trade(state: TikalState, seat: int, cmd: TradeTreasure) -> RuleViolation | None:
    if not 0 <= cmd.other < state.seats or cmd.other == seat:
        return RuleViolation("tikal.bad_trade", "trade with another seat")
    if cmd.give not in TREASURE_KINDS or cmd.take not in TREASURE_KINDS or cmd.give == cmd.take:
        return RuleViolation("tikal.bad_trade", "trade one kind of treasure for a different kind")
    mine = state.players[seat].treasures[TREASURE_KINDS.index(cmd.give)]
    theirs = state.players[cmd.other].treasures[TREASURE_KINDS.index(cmd.take)]
    if mine != 1 or theirs != 1:
        return RuleViolation("tikal.not_single_treasure",
                             "each traded token must be the only one of its kind its owner holds")
    return _ap(state, COSTS["trade"])


def _camp(state: TikalState, seat: int, cmd: BuildCamp) -> RuleViolation | None:
    space = _tile(state, cmd.q, cmd.r, "clearing", "tikal.not_a_clearing", "camps go on clearings or emptied ruins")
    if isinstance(space, RuleViolation):
        return space
    return _first((space.camp is not None, "tikal.camp_exists", "this clearing already has a camp"),
                  (state.players[seat].camps >= CAMPS, "tikal.no_camp_left", f"at most {CAMPS} camps per player"),
                  (pieces(space, seat) == 0, "tikal.no_piece_there", "you need a piece on the clearing")
                  ) or _ap(state, COSTS["camp"])


def _guard(state: TikalState, seat: int, cmd: PlaceGuard) -> RuleViolation | None:
    space = _tile(state, cmd.q, cmd.r, "temple", "tikal.not_a_temple", "guards go on temples")
    if isinstance(space, RuleViolation):
        return space
    return _first((space.guard is not None, "tikal.temple_guarded", "this temple already has a guard"),
                  (state.players[seat].guards >= GUARDS, "tikal.no_guard_left", f"at most {GUARDS} guards per player"),
                  (majority(space) != seat, "tikal.not_majority",
                   "you need strict majority on the temple (leader 3, explorer 1)"),
                  (cmd.leader is True and not space.leaders[seat], "tikal.no_piece_there",
                   "your leader is not on this temple"),
                  (cmd.leader is False and space.explorers[seat] == 0, "tikal.no_piece_there",
                   "no explorer of yours is on this temple")
                  ) or _ap(state, COSTS["guard"])


def action_refusal(state: TikalState, seat: int, cmd: TikalCommand) -> RuleViolation | None:
    """Why `seat` may not take action `cmd` in his 10-AP phase now, or None."""
    match cmd:
        case EndTurn():
            return None
        case EnterPiece():
            return _enter(state, seat, cmd)
        case MovePiece() | CampMove():
            return _move(state, seat, cmd)
        case UncoverLevel():
            return _uncover(state, seat, cmd)
        case DigTreasure():
            return _dig(state, seat, cmd)
        case TradeTreasure():
            return _trade(state, seat, cmd)
        case BuildCamp():
            return _camp(state, seat, cmd)
        case PlaceGuard():
            return _guard(state, seat, cmd)
    return RuleViolation("tikal.wrong_phase", f"{type(cmd).__name__} is not an action of your 10-AP phase")


def action_events(state: TikalState, seat: int, cmd: TikalCommand) -> list[TikalEvent]:
    """The event of an allowed action other than EndTurn (`action_refusal` returned None)."""
    spaces = board_map(state)
    match cmd:
        case EnterPiece():
            explorer = None if cmd.leader else next_explorer(state.players[seat])
            return [PieceEntered(seat=seat, q=cmd.q, r=cmd.r, leader=cmd.leader, cost=COSTS["enter"],
                                 explorer=explorer)]
        case MovePiece() | CampMove():
            piece = moving_piece(state, seat, spaces[(cmd.from_q, cmd.from_r)], cmd)
            return [PieceMoved(seat=seat, from_q=cmd.from_q, from_r=cmd.from_r, to_q=cmd.to_q, to_r=cmd.to_r,
                               leader=cmd.leader, cost=move_cost(state, cmd) or 0, by_camp=isinstance(cmd, CampMove),
                               explorer=None if piece == LEADER else piece)]
        case UncoverLevel():
            space = spaces[(cmd.q, cmd.r)]
            return [LevelUncovered(seat=seat, q=cmd.q, r=cmd.r, value=space.value + 1, cost=COSTS["uncover"],
                                   piece=acting_piece(state, seat, space, cmd))]
        case DigTreasure():
            space = spaces[(cmd.q, cmd.r)]
            top = next(t.kinds[0] for t in state.hidden.ruins if (t.q, t.r) == (cmd.q, cmd.r))
            return [TreasureDug(seat=seat, q=cmd.q, r=cmd.r, treasure=top, cost=COSTS["dig"],
                                piece=acting_piece(state, seat, space, cmd))]
        case TradeTreasure():
            return [TreasureTraded(seat=seat, other=cmd.other, gave=cmd.give, took=cmd.take, cost=COSTS["trade"])]
        case BuildCamp():
            return [CampBuilt(seat=seat, q=cmd.q, r=cmd.r, cost=COSTS["camp"])]
        case PlaceGuard():
            space = spaces[(cmd.q, cmd.r)]
            explorers, leader = space.explorers[seat], space.leaders[seat]
            by_leader = explorers == 0 if cmd.leader is None else cmd.leader
            return [GuardPlaced(seat=seat, q=cmd.q, r=cmd.r, guard_is_leader=by_leader,
                                explorers_removed=explorers - (0 if by_leader else 1),
                                leader_removed=leader and not by_leader, cost=COSTS["guard"])]
    raise AssertionError(f"{cmd} is not an action with an event")


def _acted_on(state: TikalState) -> dict[tuple[int, int], list[int]]:
    """The pieces that acted this phase, by the tile they acted on."""
    done_on: dict[tuple[int, int], list[int]] = {}
    for m in state.acted:
        done_on.setdefault((m.q, m.r), []).append(m.piece)
    return done_on


def legal_actions(state: TikalState, seat: int) -> list[TikalCommand]:
    """Every atomic action `seat` may take in his 10-AP phase, EndTurn included.

    By definition the candidates `action_refusal` lets through, in this order: EndTurn; entering
    on each camp of his (explorer, then leader); then per tile with a piece of his, moves to each
    reachable tile (by each movable piece: the leader, a fresh explorer, each named explorer that
    acted this phase), camp moves to his other camps, uncovers and digs by each piece free to act
    there (leader, then explorers by id), a camp, guards (leader, then explorer); then trades of
    single tokens with each other seat. Generated here directly, each family from facts computed
    once per listing (action points, pieces that acted, paths from each tile) instead of asking
    the predicate per candidate; tests/domain/tikal/test_legal_listing.py keeps the filtering
    definition and checks the two agree. `decide` still asks `action_refusal` of every command.
    """
    ap, player = state.ap, state.players[seat]
    listed: list[TikalCommand] = [EndTurn()]
    camps = [s for s in state.board if s.kind == "base_camp" or s.camp == seat]
    if ap >= COSTS["enter"]:
        explorer_left, leader_left = player.explorers != 0, player.leader == "supply"
        for camp in camps:
            if explorer_left:
                listed.append(EnterPiece(camp.q, camp.r, False))
            if leader_left:
                listed.append(EnterPiece(camp.q, camp.r, True))
    marked, done_on = {m.piece for m in state.acted}, _acted_on(state)
    may_camp_move = ap >= COSTS["camp_move"]
    may_camp = ap >= COSTS["camp"] and player.camps < CAMPS
    may_guard = ap >= COSTS["guard"] and player.guards < GUARDS
    for space in state.board:
        q, r, ids, has_leader = space.q, space.r, space.ids[seat], space.leaders[seat]
        if not space.explorers[seat] + (1 if has_leader else 0):
            continue
        forms: list[tuple[bool, Optional[int]]] = [(True, None)] if has_leader else []
        if any(p not in marked for p in ids):
            forms.append((False, None))
        forms += [(False, p) for p in ids if p in marked]
        if forms:
            targets = [c for c, cost in reach_in_order(state.board, (q, r)) if cost <= ap]
            listed += [MovePiece(q, r, tq, tr, leader, explorer) for leader, explorer in forms for tq, tr in targets]
            if may_camp_move and (space.kind == "base_camp" or space.camp == seat):
                listed += [CampMove(q, r, o.q, o.r, leader, explorer)
                           for leader, explorer in forms for o in camps if o is not space]
        kind = space.kind
        if kind == "temple" or kind == "ruins":
            listed += _acts(state, seat, space, done_on.get((q, r), []))
        elif kind == "clearing" and may_camp and space.camp is None:
            listed.append(BuildCamp(q, r))
        if kind == "temple" and may_guard and space.guard is None and majority(space) == seat:
            if has_leader:
                listed.append(PlaceGuard(q, r, True))
            if space.explorers[seat] != 0:
                listed.append(PlaceGuard(q, r, False))
    if ap >= COSTS["trade"]:
        singles = [[k for k, n in zip(TREASURE_KINDS, p.treasures) if n == 1] for p in state.players]
        for other in range(state.seats):
            if other != seat:
                listed += [TradeTreasure(other, give, take) for give in singles[seat] for take in singles[other]
                           if give != take]
    return listed


def _acts(state: TikalState, seat: int, space: Space, done: list[int]) -> list[TikalCommand]:
    """The uncovers (temple) or digs (ruins) `seat` may do on `space`, naming each piece free to act
    there (the leader, then explorers by id); `done` are the pieces that acted there this phase."""
    if len(done) >= 2:
        return []
    free: list[tuple[bool, Optional[int]]] = [(True, None)] if space.leaders[seat] and LEADER not in done else []
    free += [(False, p) for p in space.ids[seat] if p not in done]
    named = [(leader, explorer) for leader, explorer in free if explorer is None or explorer >= 1]
    if space.kind == "temple":
        nxt = space.value + 1
        if (space.guard is not None or state.ap < COSTS["uncover"]
                or nxt > MAX_LEVEL or state.levels[nxt - 2] == 0):
            return []
        return [UncoverLevel(space.q, space.r, leader, explorer) for leader, explorer in named]
    if state.ap < COSTS["dig"]:
        return []
    return [DigTreasure(space.q, space.r, leader, explorer) for leader, explorer in named]
