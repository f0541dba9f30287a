"""A picture of the island: `board_svg(state, seat)` draws terrains, landmarks
(statues with their gaze), amulets, ATVs and the markers of every map whose
markers are on the board (candidate sets are public; `seat` only highlights
that seat's ATV; None = spectator). Pure: returns the SVG text."""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

from domain.tobago.components import MAPS, MARKERS_PER_MAP
from domain.tobago.island import DIRECTIONS, bits
from domain.tobago.state import TobagoState, candidates

SIZE = 24.0
FILL = {"jungle": "#2e7d32", "mountains": "#8d6e63", "scrub": "#c0ca33", "beach": "#ffe082",
        "lake": "#4fc3f7", "river": "#1565c0"}
MARKER = {"white": "#ffffff", "grey": "#9e9e9e", "brown": "#6d4c41", "black": "#000000"}
SEAT = ["#e53935", "#1e88e5", "#fdd835", "#8e24aa"]


def _centre(q: int, r: int) -> tuple[float, float]:
    return SIZE * 1.5 * q, SIZE * math.sqrt(3) * (r + q / 2)


def _corners(x: float, y: float) -> str:
    return " ".join(f"{x + SIZE * math.cos(math.pi / 3 * k):.1f},{y + SIZE * math.sin(math.pi / 3 * k):.1f}"
                    for k in range(6))


def board_svg(state: TobagoState, seat: int | None) -> str:
    centres = [_centre(q, r) for q, r, _ in state.island]
    xs, ys = [x for x, _ in centres], [y for _, y in centres]
    x0, y0 = min(xs) - 2 * SIZE, min(ys) - 2 * SIZE
    width, height = max(xs) - x0 + 2 * SIZE, max(ys) - y0 + 2 * SIZE
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{x0:.1f} {y0:.1f} {width:.1f} {height:.1f}" '
           f'width="{width:.0f}" height="{height:.0f}">',
           f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{width:.1f}" height="{height:.1f}" fill="#0d47a1"/>']
    for i, ((q, r, terrain), (x, y)) in enumerate(zip(state.island, centres)):
        out.append(f'<polygon data-hex="{i}" data-q="{q}" data-r="{r}" data-terrain="{terrain}" '
                   f'points="{_corners(x, y)}" fill="{FILL[terrain]}" stroke="#333" stroke-width="1">'
                   f'<title>{i} ({q},{r}) {escape(terrain)}</title></polygon>')
    marks = state.landmarks
    for h in marks.huts:
        x, y = centres[h]
        out.append(f'<rect data-landmark="hut" x="{x - 6:.1f}" y="{y - 6:.1f}" width="12" height="12" fill="#a1887f"/>')
    for h in marks.palms:
        x, y = centres[h]
        out.append(f'<circle data-landmark="palm" cx="{x:.1f}" cy="{y:.1f}" r="7" fill="#1b5e20" stroke="#fff"/>')
    for h, facing in zip(marks.statues, state.facing):
        x, y = centres[h]
        dq, dr = DIRECTIONS[facing]
        tx, ty = _centre(dq, dr)
        out.append(f'<g data-landmark="statue" data-facing="{facing}"><circle cx="{x:.1f}" cy="{y:.1f}" r="7" '
                   f'fill="#616161"/><line x1="{x:.1f}" y1="{y:.1f}" x2="{x + tx * 0.6:.1f}" y2="{y + ty * 0.6:.1f}" '
                   f'stroke="#fff" stroke-width="3"/></g>')
    for h in state.amulets:
        x, y = centres[h]
        out.append(f'<polygon data-amulet="{h}" points="{x:.1f},{y - 9:.1f} {x + 6:.1f},{y:.1f} {x:.1f},{y + 9:.1f} '
                   f'{x - 6:.1f},{y:.1f}" fill="#ff6f00" stroke="#fff"/>')
    for index, colour in enumerate(MAPS):
        cand = bits(candidates(state, index))
        if not state.maps[index].slots or len(cand) > MARKERS_PER_MAP:
            continue
        dx, dy = (-9 + 6 * index, 12)
        for h in cand:
            x, y = centres[h]
            out.append(f'<circle data-marker="{colour}" data-hex-marker="{h}" cx="{x + dx:.1f}" cy="{y - dy:.1f}" '
                       f'r="3" fill="{MARKER[colour]}" stroke="#000" stroke-width="0.5"/>')
    for s, player in enumerate(state.players):
        if player.atv is None:
            continue
        x, y = centres[player.atv]
        ring = ' stroke="#fff" stroke-width="3"' if s == seat else ' stroke="#000" stroke-width="1"'
        out.append(f'<rect data-atv="{s}" x="{x - 8 + 4 * s:.1f}" y="{y + 2:.1f}" width="9" height="7" '
                   f'fill="{SEAT[s % len(SEAT)]}"{ring}/>')
    out.append("</svg>")
    return "\n".join(out)
