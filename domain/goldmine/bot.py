"""Gold Mine bot weights and scores: how a bot leans among its legal commands.

`weights(state, seat, commands)` gives one non-negative int per command, in the
same order, for the harness (`domain.simulate`) to draw from; it never draws
itself. Every command keeps a weight of at least 1 so play stays varied.
`scores(view, seat, commands)` (the kind's `Game.bot_scores`, which the service's
greedy bot reaches through the catalogue) rebuilds the public part of the state
from the seat's own view (the secret stack and scout tiles left empty) and
scores the legal commands (JSON) with the same weights.

The bot steers by a goal field: the fewest steps from each position to the
seat's goal, found backwards from the goal over the connected paths. The goal
is the entrance once the pirate (or its team) holds enough coins, else any
gold chamber holding a coin. A secret passage counts as a shortcut of
`SECRET_COST` steps between any two entrances (a 1 in 3 roll per try) and,
with `mud`, entering a puddle costs `MUD_COST` extra steps. The geometry of
one board (paths, fields) is computed once and reused until the board
changes: the state is immutable, so the board tuple's identity is its key.

Leanings: take a coin whenever possible; move towards the goal (a chamber
with a coin, or the entrance when carrying enough); try a secret passage
when it is the shorter way; explore when no coin can be reached (and
sometimes when the nearest is far); place tiles so they join the explorer's
part of the cave, best right next to it so it can step on a new chamber;
challenge with bats a rival about to escape; put a bet's coin near oneself;
move a bats loser as far from its goal as the die allows.
"""

from __future__ import annotations

import heapq
from collections import deque
from typing import Any

import msgspec

from domain.goldmine.board import DELTA, Cells, Pos, entrance_pos, links, neighbours, path_sides
from domain.goldmine.commands import (Challenge, EndTurn, Explore, GoldmineCommand, Move, PassCoins, PlaceCoin,
                                      PlaceTile, Roll, SecretPassage, Stay, TakeCoin)
from domain.goldmine.components import design
from domain.goldmine.options import GoldmineOptions
from domain.goldmine.state import Cell, GoldmineState, Hidden, Pirate, cells, position, team_coins

Json = dict[str, Any]
INF = 10 ** 6
SECRET_COST = 8
MUD_COST = 3
LADDER = (100, 25, 6, 2)
"""Weight of a destination by how many steps it is worse than the best one (then 1)."""
TAKE = 1000
CLOSE_TO_ESCAPE = 10


class Cave:
    """The geometry of one board: positions, their links, secret passages, puddles and the goal fields."""

    def __init__(self, state: GoldmineState) -> None:
        self.board: Cells = cells(state)
        self.graph: dict[Pos, list[Pos]] = {}
        self.secrets: set[Pos] = set()
        self.mud: set[Pos] = set()
        coins: list[Pos] = []
        for cell in state.board:
            for index, path in enumerate(design(cell.tile).paths):
                pos = (cell.x, cell.y, index)
                self.graph[pos] = neighbours(self.board, pos)
                if path.secret:
                    self.secrets.add(pos)
                if path.mud and state.options.mud:
                    self.mud.add(pos)
                if path.chamber and cell.coin:
                    coins.append(pos)
        self.coins = coins
        self._fields: dict[str, dict[Pos, int]] = {}

    def field(self, goal: str) -> dict[Pos, int]:
        """Steps to the goal ("coin" or "home") from every position that can reach it."""
        if goal not in self._fields:
            self._fields[goal] = self._field(self.coins if goal == "coin" else [entrance_pos()])
        return self._fields[goal]

    def _field(self, sources: list[Pos]) -> dict[Pos, int]:
        dist: dict[Pos, int] = {}
        heap = [(0, pos) for pos in sources]
        heapq.heapify(heap)
        secrets_done = False
        while heap:
            d, pos = heapq.heappop(heap)
            if pos in dist:
                continue
            dist[pos] = d
            step = 1 + (MUD_COST if pos in self.mud else 0)  # walking from a neighbour into `pos`
            for other in self.graph[pos]:
                if other not in dist:
                    heapq.heappush(heap, (d + step, other))
            if not secrets_done and pos in self.secrets:
                secrets_done = True  # the first entrance popped is the nearest: it serves every other
                for other in self.secrets:
                    if other not in dist:
                        heapq.heappush(heap, (d + SECRET_COST, other))
        return dist

    def part(self, start: Pos) -> set[Pos]:
        """Positions reachable from `start` by walking, or through secret passages met on the way."""
        seen, queue, secrets_open = {start}, deque([start]), False
        while queue:
            pos = queue.popleft()
            nxt = list(self.graph.get(pos, ()))
            if pos in self.secrets and not secrets_open:
                secrets_open = True
                nxt += sorted(self.secrets)
            for other in nxt:
                if other not in seen:
                    seen.add(other)
                    queue.append(other)
        return seen


_LAST: list = [None, None, None]
"""The last (board tuple, mud option, Cave): holding the tuple keeps its identity from being reused."""


def cave(state: GoldmineState) -> Cave:
    """The board's `Cave`, reused while the same (immutable) board tuple comes back."""
    if _LAST[0] is not state.board or _LAST[1] != state.options.mud:
        _LAST[:] = [state.board, state.options.mud, Cave(state)]
    return _LAST[2]


def carrying(state: GoldmineState, seat: int) -> bool:
    """Whether the seat (or its team) holds enough coins to win by reaching the entrance."""
    return team_coins(state, seat) >= state.target


def goal_field(state: GoldmineState, geo: Cave, seat: int) -> dict[Pos, int]:
    return geo.field("home" if carrying(state, seat) else "coin")


def prefer_low(values: list[int]) -> list[int]:
    """Weights favouring the smallest values (unreachable ones get 1)."""
    best = min(values)
    return [1 if v >= INF else (LADDER[v - best] if v - best < len(LADDER) else 1) for v in values]


def weights(state: GoldmineState, seat: int, commands: list[GoldmineCommand]) -> list[int]:
    """One weight >= 1 per command of `seat`, same order."""
    if not commands:
        return []
    geo = cave(state)
    phase = state.phase
    if phase in ("scout", "place"):
        out = _placements(state, geo, commands)
    elif phase == "move":
        out = _movement(state, geo, seat, commands)
    elif phase == "bats_move":
        out = _push(state, geo, commands)
    elif phase in ("step", "roll_move", "secret", "bonus"):
        out = _destinations(state, geo, commands)
    elif phase == "bet_coin":
        out = _bet_coin(state, geo, seat, commands)
    else:
        out = _action(state, geo, seat, commands)
    return [max(1, w) for w in out]


def _target(state: GoldmineState, command: GoldmineCommand) -> Pos:
    """Where a Move (or Stay) leaves the pirate being moved."""
    if isinstance(command, Move):
        return (command.x, command.y, command.path)
    return position(state.pirates[state.mover])


def _destinations(state: GoldmineState, geo: Cave, commands: list[GoldmineCommand]) -> list[int]:
    field = goal_field(state, geo, state.mover)
    return prefer_low([field.get(_target(state, c), INF) for c in commands])


def _push(state: GoldmineState, geo: Cave, commands: list[GoldmineCommand]) -> list[int]:
    """The bats winner moves the loser: as far from the loser's goal as possible."""
    field = goal_field(state, geo, state.mover)
    far = [min(field.get(_target(state, c), INF), 99) for c in commands]
    return prefer_low([99 - d for d in far])


def _movement(state: GoldmineState, geo: Cave, seat: int, commands: list[GoldmineCommand]) -> list[int]:
    here = position(state.pirates[seat])
    field = goal_field(state, geo, seat)
    goal = field.get(here, INF)
    home = carrying(state, seat)
    walk = min((field.get(p, INF) + 1 for p in geo.graph[here]), default=INF)
    hop = min((field.get(p, INF) for p in geo.secrets if p != here), default=INF) + SECRET_COST
    out = []
    for command in commands:
        if isinstance(command, Stay):
            out.append(400 if goal == 0 else 1)
        elif isinstance(command, Roll):
            out.append(2 if goal == 0 else 60 if goal < INF else 10)
        elif isinstance(command, SecretPassage):
            out.append(2 if goal == 0 else 120 if hop < walk else 4)
        elif isinstance(command, Explore):
            if goal == 0 or home:
                out.append(2)
            elif goal >= INF:
                out.append(80)
            else:
                out.append(3 + min(goal, 30))
        else:
            out.append(1)
    return out


def _links(board: Cells, tile: str, x: int, y: int, rotation: int) -> list[tuple[int, Pos]]:
    """(path of the new tile, neighbouring position) for every opening the placement would connect."""
    return [(index, pos) for index in range(len(design(tile).paths))
            for pos in links(board, tile, rotation, x, y, index)]


def _placements(state: GoldmineState, geo: Cave, commands: list[GoldmineCommand]) -> list[int]:
    """Tiles that join the placer's part of the cave and keep it open weigh more (best: a chamber
    right at its pirate); one that would leave the part no open end (sealed for good) weighs 1."""
    tile = state.drawn
    if tile is None:
        return [1] * len(commands)
    here = position(state.pirates[state.current])
    mine = geo.part(here)
    ends = _open_ends(geo.board, mine)
    chamber = any(p.chamber for p in design(tile).paths)
    out = []
    for command in commands:
        if not isinstance(command, PlaceTile):
            out.append(1)
            continue
        x, y, rotation = command.x, command.y, command.rotation
        links = _links(geo.board, tile, x, y, rotation)
        joined = {index for index, pos in links if pos in mine}
        weight = 1 + len(links)
        if joined:
            onward = sum(1 for index in joined for side in path_sides(tile, rotation, index)
                         if (x + DELTA[side][0], y + DELTA[side][1]) not in geo.board)
            left = ends - sum(1 for _, pos in links if pos in mine) + onward
            if left <= 0:
                out.append(1)  # it would seal the part for good
                continue
            urgent = 4 if ends <= 3 else 1  # a part with few open ends must grow while it can
            weight += urgent * (5 + 8 * min(onward, 3)) + (30 if chamber else 0)
            if left < ends and left <= 2:
                weight //= 4
        if any(pos == here for _, pos in links):
            weight += 300 if chamber and state.phase == "place" else 10
        out.append(weight)
    return out


def _open_ends(board: Cells, part: set[Pos]) -> int:
    """Openings of `part` that face an empty cell (where the part can still grow)."""
    count = 0
    for x, y, path in part:
        cell = board[(x, y)]
        for side in path_sides(cell.tile, cell.rotation, path):
            if (x + DELTA[side][0], y + DELTA[side][1]) not in board:
                count += 1
    return count


def _bet_coin(state: GoldmineState, geo: Cave, seat: int, commands: list[GoldmineCommand]) -> list[int]:
    """The bet's winner puts the coin on a free chamber close to itself (leaving it is the last choice)."""
    here = position(state.pirates[seat])
    near = _walk(geo, here)
    values = []
    for command in commands:
        if not isinstance(command, PlaceCoin):
            values.append(INF)
            continue
        values.append(min((near.get((command.x, command.y, i), INF)
                           for i in range(len(design(geo.board[(command.x, command.y)].tile).paths))),
                          default=INF))
    return prefer_low(values)


def _walk(geo: Cave, start: Pos) -> dict[Pos, int]:
    dist, queue = {start: 0}, deque([start])
    while queue:
        pos = queue.popleft()
        for other in geo.graph[pos]:
            if other not in dist:
                dist[other] = dist[pos] + 1
                queue.append(other)
    return dist


def _action(state: GoldmineState, geo: Cave, seat: int, commands: list[GoldmineCommand]) -> list[int]:
    home = geo.field("home")
    mine = carrying(state, seat)
    out = []
    for command in commands:
        if isinstance(command, TakeCoin):
            out.append(TAKE)
        elif isinstance(command, EndTurn):
            out.append(20)
        elif isinstance(command, Challenge):
            rival = state.pirates[command.target]
            danger = carrying(state, command.target) and home.get(position(rival), INF) <= CLOSE_TO_ESCAPE
            if command.kind == "bats":
                out.append(40 if danger and not mine else 1)
            else:
                out.append(1 if mine else 30 if danger else 6)
        elif isinstance(command, PassCoins):
            out.append(1)
        else:
            out.append(1)
    return out


# -- the greedy bot's scorer: the public state rebuilt from the seat's view -------------------

_COMMANDS = msgspec.json.Decoder(list[GoldmineCommand])


def public_state(view: Json) -> GoldmineState:
    """The state as far as `view` shows it: everything but the hidden stack and scout tiles (left empty)."""
    return GoldmineState(
        options=msgspec.convert(view["options"], GoldmineOptions), seats=view["seats"], target=view["target"],
        hidden=Hidden(), board=tuple(Cell(x=t["x"], y=t["y"], tile=t["tile"]["id"], rotation=t["rotation"],
                                          coin=t["coin"]) for t in view["board"]),
        pirates=tuple(msgspec.convert(p, Pirate) for p in view["pirates"]),
        hands=tuple(tuple(t["id"] for t in hand) for hand in view["hands"]), first=view["first"],
        current=view["current"], phase=view["phase"], drawn=view["drawn"]["id"] if view["drawn"] else None,
        die=view["die"], chooser=view["chooser"], mover=view["mover"], turns=view["turns"])


def scores(view: Json, seat: int, commands: list[Json]) -> list[float]:
    """The greedy bot's scores: `weights` over the state the view shows and the decoded legal commands."""
    typed = _COMMANDS.decode(msgspec.json.encode(commands))
    return [float(w) for w in weights(public_state(view), seat, typed)]
