"""The island (spec, *Island* and *Components*): both kinds pass the validator, landmarks follow the rules,
statues gaze at the coast, and the picture shows every land hex."""

import xml.etree.ElementTree as ET

import pytest

from domain.kernel import Rng, RuleViolation
from domain.table import Table
from domain.tobago.clues import board, board_problems
from domain.tobago.components import CLASSIC_ISLAND, CLUE_IDS
from domain.tobago.game import GAME
from domain.tobago.generate import generate_island
from domain.tobago.island import distance, find_landmarks, geometry, island_problems, landmark_problems
from domain.tobago.options import TobagoOptions
from domain.tobago.setup import build_board
from tests.domain.tobago.support import GEO, hx, table


def test_classic_island_has_104_land_hexes_and_passes_the_validator():
    assert len(CLASSIC_ISLAND) == 104
    assert island_problems(CLASSIC_ISLAND) == []


def test_each_terrain_has_one_strictly_largest_region_on_the_classic_island():
    for terrain, mask in GEO.big.items():
        assert GEO.big_unique[terrain]
        hexes = [i for i in range(GEO.n) if mask >> i & 1]
        assert {GEO.terrain[i] for i in hexes} == {terrain}
        assert GEO.region_of[hexes[0]] == GEO.region_of[hexes[-1]]


@pytest.mark.slow  # a thousand islands
def test_a_thousand_generated_islands_all_pass_the_validator():
    sizes = set()
    for seed in range(1000):
        rng = Rng(b"island-%d" % seed, 0)
        island = generate_island(rng)
        assert island_problems(island) == [], seed
        marks = find_landmarks(geometry(island), rng)
        assert marks is not None and landmark_problems(geometry(island), marks, (0, 0, 0)) == []
        assert board_problems(board(island, marks)) == []
        sizes.add(island)
    assert len(sizes) == 1000, "every seed gives a different island"


def test_validator_refuses_enclosed_sea_coastal_lakes_inland_beaches_and_tied_regions():
    ring = [(q, r, "scrub") for q in range(-3, 4) for r in range(-3, 4) if 0 < max(abs(q), abs(r), abs(q + r)) <= 3]
    assert "enclosed sea" in island_problems(tuple(sorted(ring)))
    classic = {(q, r): t for q, r, t in CLASSIC_ISLAND}
    coastal_lake = {**classic, (-6, -1): "lake"}
    assert any("lake" in p for p in island_problems(tuple(sorted((q, r, t) for (q, r), t in coastal_lake.items()))))
    inland = next(GEO.coords[i] for i in range(GEO.n) if GEO.ocean_dist[i] == 3)
    inland_beach = {**classic, inland: "beach"}
    assert any("beach" in p for p in island_problems(tuple(sorted((q, r, t) for (q, r), t in inland_beach.items()))))
    # the big river (1,-6) (1,-5) (1,-4) (2,-4) loses a hex and ties with the 3-hex river in the west
    tied = {**classic, (2, -4): "scrub"}
    problems = island_problems(tuple(sorted((q, r, t) for (q, r), t in tied.items())))
    assert "no strictly largest river region" in problems


def test_random_landmarks_follow_the_placement_rules():
    for seed in range(30):
        island, marks, facing = build_board(TobagoOptions(island="generated" if seed % 2 else "classic"),
                                            Rng(b"lm%d" % seed, 0))
        geo = geometry(island)
        assert landmark_problems(geo, marks, tuple(facing)) == []
        for group in (marks.huts, marks.palms, marks.statues):
            assert all(distance(geo.coords[a], geo.coords[b]) >= 4 for a in group for b in group if a < b)
        assert not any(geo.coastal[s] for s in marks.statues)


def test_explicit_landmarks_that_break_the_rules_are_bad_options():
    tables = Table(GAME)
    with pytest.raises(RuleViolation) as exc:
        tables.create({"landmarks": {"huts": [[-4, 0], [-4, 1], [2, -1], [6, -5]], "palms": [[-1, 3], [1, -2], [5, -4]],
                                    "statues": [[-5, 2, 0], [-2, -2, 2], [4, -5, 3]]}}, 3, b"s")
    assert exc.value.code == "tobago.bad_options"
    with pytest.raises(RuleViolation):
        tables.create({"island": "generated", "landmarks": {"huts": [], "palms": [], "statues": []}}, 3, b"s")


def test_a_statue_gazes_at_the_last_land_hex_before_the_ocean():
    # statue at (-2,-2) looking SE (+1, 0): (-1,-2) (0,-2) (1,-2) (2,-2) (3,-2) (4,-2) then (5,-2) is ocean
    assert GEO.gaze_target(hx(-2, -2), 2) == hx(4, -2)
    assert GEO.gaze_target(hx(-2, -2), 0) == hx(-2, -4)


def test_drive_steps_count_regions_not_hexes():
    # from a jungle hex, any hex of its region is one step; a neighbour of another region is one step
    start = hx(2, 1)
    dist = GEO.steps_from(start)
    region = GEO.regions[GEO.region_of[start]]
    assert all(dist[h] == 1 for h in region if h != start)
    assert all(dist[h] == 1 for h in GEO.neigh[start])
    assert max(dist) > 3


def test_board_svg_is_valid_xml_with_one_element_per_land_hex():
    state = table()
    svg = GAME.board_svg(state, None)
    root = ET.fromstring(svg)
    hexes = [el for el in root.iter() if "data-hex" in el.attrib]
    assert sorted(int(el.attrib["data-hex"]) for el in hexes) == list(range(len(state.island)))
    assert len([el for el in root.iter() if "data-landmark" in el.attrib]) == 10
    ET.fromstring(GAME.board_svg(state, 1))


def test_every_clue_card_splits_the_classic_island():
    b = board(CLASSIC_ISLAND, table().landmarks)
    assert board_problems(b) == [] and len(b.masks) == len(CLUE_IDS) == 52
