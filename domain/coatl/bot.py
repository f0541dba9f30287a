"""Cóatl: complete coatls that satisfy the prophecy cards one holds, and close them with a temple.

Read from the seat's view: its board, its coatls with the cards beside them, its own hand and personal
temples, the disc, the row and the pile tops (all printed inline). Cards are valued with the domain's
pure scoring of a colour sequence (`domain.coatl.scoring`), the published rules a client would compute.

A build step is worth the change it makes to the seat's coatls' potential: the points of the cards
beside each coatl, plus the best hand cards it satisfies (half, while it is unfinished), plus its shape
(a head, a tail, some body) and a large bonus once it is complete. Taking pieces is worth what the coatls
lack (heads and tails first, bodies in the colours the held cards ask for); taking prophecy cards is worth
it while the hand is short. Once a coatl completes: every satisfied card goes beside it, then the best
temple it meets. Sacrifice tokens are kept (a last resort).

`scores(view, seat, commands)` is the kind's `Game.bot_scores`: it reads only the seat's own view (JSON)
and the legal commands; the service's greedy bot reaches it through the catalogue.
"""

from __future__ import annotations

from typing import Any

from domain.coatl.components import MAX_PROPHECIES_PER_COATL
from domain.coatl.scoring import prophecy_points, temple_points

Json = dict[str, Any]
COMPLETE = 6.0
HAND_SHORT = 2


def _colors(pieces: list[Json]) -> tuple[str, ...]:
    return tuple(p["color"] for p in pieces)


def _complete(pieces: list[Json]) -> bool:
    kinds = [p["kind"] for p in pieces]
    return "head" in kinds and "tail" in kinds and "body" in kinds


def potential(pieces: list[Json], beside: list[int], hand: list[int], temples: list[int]) -> float:
    """What an unclosed coatl promises: cards beside it, hand cards it satisfies, its shape or completion."""
    colors = _colors(pieces)
    points = sum(prophecy_points(t, colors) for t in beside)
    extra = sorted((prophecy_points(t, colors) for t in set(hand) - set(beside)), reverse=True)
    extra = [p for p in extra[:MAX_PROPHECIES_PER_COATL - len(beside)] if p > 0]
    if _complete(pieces):
        temple = max((temple_points(t, colors, beside) for t in temples), default=0)
        return COMPLETE + points + sum(extra) + 0.5 * temple
    kinds = [p["kind"] for p in pieces]
    shape = ("head" in kinds) + ("tail" in kinds) + 0.4 * min(kinds.count("body"), 5)
    return points + 0.5 * sum(extra) + shape


class Seat:
    """The seat's side of the table, as its own view shows it."""

    def __init__(self, view: Json, seat: int) -> None:
        me = view["players"][seat]
        self.view, self.me = view, me
        self.hand = [c["type"] for c in me["hand"] or []]
        self.temples = [t["type"] for t in (me["temples"] or [])] + [t["type"] for t in view["pile_tops"] if t]
        self.coatls = me["coatls"]
        self.open = [i for i, c in enumerate(self.coatls) if c["status"] != "closed"]
        self.wanted = _wanted_colors(view, me)

    def total(self, coatls: dict[int, tuple[list[Json], list[int]]], hand: list[int]) -> float:
        return sum(potential(pieces, beside, hand, self.temples) for pieces, beside in coatls.values())

    def current(self) -> dict[int, tuple[list[Json], list[int]]]:
        return {i: (list(self.coatls[i]["pieces"]), [c["type"] for c in self.coatls[i]["cards"]]) for i in self.open}

    def need(self, kind: str) -> int:
        """How many more heads (or tails) the seat's coatls, started and still to start, will want."""
        incomplete = [c for c in self.coatls if c["status"] == "open"]
        lacking = sum(1 for c in incomplete if kind not in [p["kind"] for p in c["pieces"]])
        to_start = max(0, min(2, 3 - self.me["completed"]) - len(incomplete))
        return lacking + to_start - sum(1 for p in self.me["board"] if p["kind"] == kind)


def _wanted_colors(view: Json, me: Json) -> dict[str, int]:
    """How often each colour is named by the cards the seat holds or has beside its open coatls."""
    wanted: dict[str, int] = {}
    cards = list(me["hand"] or []) + [c for co in me["coatls"] if co["status"] != "closed" for c in co["cards"]]
    for card in cards:
        for color in _pattern_colors(card):
            wanted[color] = wanted.get(color, 0) + 1
    return wanted


def scores(view: Json, seat: int, commands: list[Json]) -> list[float]:
    me = Seat(view, seat)
    base = me.total(me.current(), me.hand)
    return [_score(view, me, base, c) for c in commands]


def _score(view: Json, me: Seat, base: float, command: Json) -> float:
    kind = command["type"].split(".", 1)[1]
    turn = view["turn"] or {}
    if kind == "KeepProphecies":
        return 10.0 * len(command["cards"])
    if kind in ("StartCoatl", "AddPiece"):
        coatls = me.current()
        piece = command["piece"]
        if kind == "StartCoatl":
            coatls[-1] = ([piece], [])
        else:
            pieces, beside = coatls[command["coatl"]]
            coatls[command["coatl"]] = ([piece, *pieces] if command["end"] == "head" else [*pieces, piece], beside)
        return me.total(coatls, me.hand) - base
    if kind == "PlayProphecy":
        coatl = me.coatls[command["coatl"]]
        points = prophecy_points(_type_of(me, command["card"]), _colors(coatl["pieces"]))
        return (20.0 if turn.get("pending") is not None else 0.5 + 0.5 * points) + points
    if kind == "PlayTemple":
        coatl = me.coatls[turn["pending"]]
        return 10.0 + temple_points(command["temple"], _colors(coatl["pieces"]), [c["type"] for c in coatl["cards"]])
    if kind == "CloseCoatl":
        return 10.0
    if kind == "TakePieces":
        return _take(view, me, command)
    if kind == "TakeProphecy":
        if len(me.hand) > HAND_SHORT:
            return -1.0
        card = next((c for c in view["row"] if c["id"] == command["card"]), None)
        if card is None:
            return 1.0
        best = max((prophecy_points(card["type"], _colors(me.coatls[i]["pieces"])) for i in me.open), default=0)
        return 1.2 + 0.2 * sum(me.wanted.get(c, 0) for c in _pattern_colors(card)) + 0.5 * best
    if kind == "DiscardProphecy":
        return 0.0
    if kind in ("PerfectChoice", "Foretell", "PriestsDuty"):
        return -2.0
    return 0.0  # EndTurn


def _type_of(me: Seat, card_id: int) -> int:
    return next(c["type"] for c in me.me["hand"] if c["id"] == card_id)


def _pattern_colors(card: Json) -> list[str]:
    """The colours a card asks for (a count card's keys, a pattern's words; "NOT x" asks for no x)."""
    pattern = card["pattern"]
    return list(pattern) if isinstance(pattern, dict) else [w.split()[-1].rstrip("+") for w in pattern
                                                           if not w.startswith("NOT")]


def _take(view: Json, me: Seat, command: Json) -> float:
    disc, index = view["disc"], command["index"]
    if command["slot"] in ("head", "tail"):
        return 2.0 if me.need(command["slot"]) > 0 else 0.2
    colors = disc["bodies"][index]
    return 0.6 + 0.3 * min(sum(me.wanted.get(c, 0) for c in colors), 4)
