"""The action rules of a 10-AP phase: one predicate per action, shared by `decide` and `legal`.

Each `cost_of_*` function raises RuleViolation when the action is illegal and
otherwise returns its cost in action points; `check_ap` then refuses what the
seat cannot pay. Ruling for the "a different piece per level / per token"
rule: the pieces that uncovered or dug on a tile this phase are taken to be
the last of yours to leave it, so you may act there again only while your
pieces on it outnumber the levels (tokens) already taken there this phase.
`check_invariants` lives here too.
"""

from __future__ import annotations

from domain.kernel import RuleViolation
from domain.tikal.commands import (BuildCamp, CampMove, DigTreasure, EndTurn, EnterPiece, MovePiece, PlaceGuard,
                                   TikalCommand, TradeTreasure, UncoverLevel)
from domain.tikal.components import CAMPS, EXPLORERS, GUARDS, LEVELS, MAX_LEVEL, TREASURE_KINDS, TREASURE_PER_KIND
from domain.tikal.state import Space, TikalState, board_map, done_here, is_camp_of, majority, path_costs, pieces

NO_LIMIT = 1 << 20
COSTS = {"enter": 1, "camp_move": 1, "uncover": 2, "dig": 3, "trade": 3, "camp": 5, "guard": 5}


def _space(state: TikalState, q: int, r: int) -> Space:
    space = board_map(state).get((q, r))
    if space is None:
        raise RuleViolation("tikal.no_such_space", f"no placed tile on ({q}, {r})")
    return space


def _has_piece(space: Space, seat: int, leader: bool) -> None:
    if (space.leaders[seat] if leader else space.explorers[seat] > 0):
        return
    what = "your leader" if leader else "an explorer of yours"
    raise RuleViolation("tikal.no_piece_there", f"{what} is not on ({space.q}, {space.r})")


def check_ap(state: TikalState, cost: int) -> int:
    if cost > state.ap:
        raise RuleViolation("tikal.not_enough_action_points", f"this costs {cost} AP, {state.ap} left")
    return cost


def cost_of_enter(state: TikalState, seat: int, cmd: EnterPiece) -> int:
    space = _space(state, cmd.q, cmd.r)
    if not is_camp_of(space, seat):
        raise RuleViolation("tikal.not_a_camp", "new pieces enter on the base camp or your own camps")
    player = state.players[seat]
    if (player.leader != "supply") if cmd.leader else player.explorers == 0:
        raise RuleViolation("tikal.no_piece_left", "no such piece left in your supply")
    return COSTS["enter"]


def cost_of_move(state: TikalState, seat: int, cmd: MovePiece) -> int:
    start = _space(state, cmd.from_q, cmd.from_r)
    _has_piece(start, seat, cmd.leader)
    if (cmd.from_q, cmd.from_r) == (cmd.to_q, cmd.to_r):
        raise RuleViolation("tikal.same_space", "a move must go somewhere else")
    target = _space(state, cmd.to_q, cmd.to_r)
    cost = path_costs(state, (start.q, start.r), NO_LIMIT).get((target.q, target.r))
    if cost is None:
        raise RuleViolation("tikal.no_path", "no path of stones leads there (volcanoes block)")
    return cost


def cost_of_camp_move(state: TikalState, seat: int, cmd: CampMove) -> int:
    start, target = _space(state, cmd.from_q, cmd.from_r), _space(state, cmd.to_q, cmd.to_r)
    if not (is_camp_of(start, seat) and is_camp_of(target, seat)):
        raise RuleViolation("tikal.not_a_camp", "camp moves join the base camp and your own camps only")
    if start is target:
        raise RuleViolation("tikal.same_space", "a move must go somewhere else")
    _has_piece(start, seat, cmd.leader)
    return COSTS["camp_move"]


def _fresh_piece(space: Space, seat: int, marks: tuple[tuple[int, int, int], ...], limit_code: str, what: str) -> None:
    """At most 2 per tile per phase, each by a piece of yours that has not yet acted there this phase."""
    if pieces(space, seat) == 0:
        raise RuleViolation("tikal.no_piece_there", f"you need a piece on ({space.q}, {space.r})")
    done = done_here(marks, space.q, space.r)
    if done >= 2:
        raise RuleViolation(limit_code, f"at most 2 {what} per turn")
    if pieces(space, seat) <= done:
        raise RuleViolation("tikal.needs_fresh_piece", "each one needs a different piece of yours on the tile")


def cost_of_uncover(state: TikalState, seat: int, cmd: UncoverLevel) -> int:
    space = _space(state, cmd.q, cmd.r)
    if space.kind != "temple":
        raise RuleViolation("tikal.not_a_temple", "only temples have levels")
    if space.guard is not None:
        raise RuleViolation("tikal.temple_guarded", "a guarded temple can no longer be raised")
    _fresh_piece(space, seat, state.uncovered, "tikal.third_level_this_turn", "levels per temple")
    nxt = space.value + 1
    if nxt > MAX_LEVEL or state.levels[nxt - 2] == 0:
        raise RuleViolation("tikal.no_level_left", f"no temple level {nxt} is left in the supply")
    return COSTS["uncover"]


def cost_of_dig(state: TikalState, seat: int, cmd: DigTreasure) -> int:
    space = _space(state, cmd.q, cmd.r)
    if space.kind != "ruins" or space.tokens == 0:
        raise RuleViolation("tikal.no_treasure_there", "there is no treasure to dig there")
    _fresh_piece(space, seat, state.dug, "tikal.third_dig_this_turn", "treasures per ruins")
    return COSTS["dig"]


def cost_of_trade(state: TikalState, seat: int, cmd: TradeTreasure) -> int:
    if not 0 <= cmd.other < state.seats or cmd.other == seat:
        raise RuleViolation("tikal.bad_trade", "trade with another seat")
    if cmd.give not in TREASURE_KINDS or cmd.take not in TREASURE_KINDS or cmd.give == cmd.take:
        raise RuleViolation("tikal.bad_trade", "trade one kind of treasure for a different kind")
    mine = state.players[seat].treasures[TREASURE_KINDS.index(cmd.give)]
    theirs = state.players[cmd.other].treasures[TREASURE_KINDS.index(cmd.take)]
    if mine != 1 or theirs != 1:
        raise RuleViolation("tikal.not_single_treasure", "each traded token must be the only one of its kind its owner holds")
    return COSTS["trade"]


def cost_of_camp(state: TikalState, seat: int, cmd: BuildCamp) -> int:
    space = _space(state, cmd.q, cmd.r)
    if space.kind != "clearing":
        raise RuleViolation("tikal.not_a_clearing", "camps go on clearings or emptied ruins")
    if space.camp is not None:
        raise RuleViolation("tikal.camp_exists", "this clearing already has a camp")
    if state.players[seat].camps >= CAMPS:
        raise RuleViolation("tikal.no_camp_left", f"at most {CAMPS} camps per player")
    if pieces(space, seat) == 0:
        raise RuleViolation("tikal.no_piece_there", "you need a piece on the clearing")
    return COSTS["camp"]


def cost_of_guard(state: TikalState, seat: int, cmd: PlaceGuard) -> int:
    space = _space(state, cmd.q, cmd.r)
    if space.kind != "temple":
        raise RuleViolation("tikal.not_a_temple", "guards go on temples")
    if space.guard is not None:
        raise RuleViolation("tikal.temple_guarded", "this temple already has a guard")
    if state.players[seat].guards >= GUARDS:
        raise RuleViolation("tikal.no_guard_left", f"at most {GUARDS} guards per player")
    if majority(space) != seat:
        raise RuleViolation("tikal.not_majority", "you need strict majority on the temple (leader 3, explorer 1)")
    return COSTS["guard"]


def legal_actions(state: TikalState, seat: int) -> list[TikalCommand]:
    """Every atomic action `seat` may take in his 10-AP phase, EndTurn included."""
    out: list[TikalCommand] = [EndTurn()]
    ap, player = state.ap, state.players[seat]
    camps = [s for s in state.board if is_camp_of(s, seat)]
    mine = [s for s in state.board if pieces(s, seat)]
    if ap >= 1:
        for camp in camps:
            if player.explorers:
                out.append(EnterPiece(camp.q, camp.r, False))
            if player.leader == "supply":
                out.append(EnterPiece(camp.q, camp.r, True))
            for leader in _kinds_on(camp, seat):
                out += [CampMove(camp.q, camp.r, o.q, o.r, leader) for o in camps if o is not camp]
    for space in mine:
        targets = path_costs(state, (space.q, space.r), ap)
        for leader in _kinds_on(space, seat):
            out += [MovePiece(space.q, space.r, q, r, leader) for (q, r) in sorted(targets)]
        candidates = [UncoverLevel(space.q, space.r), DigTreasure(space.q, space.r), BuildCamp(space.q, space.r),
                      PlaceGuard(space.q, space.r)]
        out += [c for c in candidates if _affordable(state, seat, c)]
    if ap >= COSTS["trade"]:
        singles = [k for k, n in zip(TREASURE_KINDS, player.treasures) if n == 1]
        for other in range(state.seats):
            theirs = [k for k, n in zip(TREASURE_KINDS, state.players[other].treasures) if n == 1]
            out += [TradeTreasure(other, g, t) for g in singles for t in theirs if other != seat and g != t]
    return out


def _kinds_on(space: Space, seat: int) -> list[bool]:
    return [leader for leader, here in ((False, space.explorers[seat] > 0), (True, space.leaders[seat])) if here]


_PREDICATES = {UncoverLevel: cost_of_uncover, DigTreasure: cost_of_dig, BuildCamp: cost_of_camp,
               PlaceGuard: cost_of_guard}


def _affordable(state: TikalState, seat: int, command) -> bool:
    try:
        check_ap(state, _PREDICATES[type(command)](state, seat, command))
    except RuleViolation:
        return False
    return True


def check_invariants(state: TikalState) -> None:
    """Raise AssertionError when the state breaks a rule that must always hold."""
    assert 0 <= state.ap <= 10, f"AP out of range: {state.ap}"
    for value, left in zip(sorted(LEVELS), state.levels):
        used = sum(1 for s in state.board if s.kind == "temple" and s.base < value <= s.value)
        assert left >= 0 and used + left == LEVELS[value], f"level {value} supply over-used"
    assert all(s.value <= MAX_LEVEL for s in state.board)
    for seat, p in enumerate(state.players):
        on_board = sum(s.explorers[seat] for s in state.board)
        assert p.explorers >= 0 and p.explorers + on_board + p.removed == EXPLORERS, f"seat {seat} explorers"
        leaders = sum(1 for s in state.board if s.leaders[seat])
        assert leaders == (1 if p.leader == "board" else 0), f"seat {seat} leader"
        assert p.camps == sum(1 for s in state.board if s.camp == seat) <= CAMPS
        assert p.guards == sum(1 for s in state.board if s.guard == seat) <= GUARDS
    held = sum(sum(p.treasures) for p in state.players)
    face_down = len(state.hidden.treasures) + sum(len(t.kinds) for t in state.hidden.ruins)
    assert held + face_down == len(TREASURE_KINDS) * TREASURE_PER_KIND, "treasure tokens lost"
    tokens = {(t.q, t.r): len(t.kinds) for t in state.hidden.ruins}
    assert tokens == {(s.q, s.r): s.tokens for s in state.board if s.tokens}, "face-down tokens mismatch"
    assert all(n <= 2 for _, _, n in state.uncovered + state.dug)
    assert state.scorings <= 4
