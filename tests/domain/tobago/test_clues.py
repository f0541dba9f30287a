"""Clue semantics (spec, *Clue semantics*; rulebook, "Как читать ключи") and the three rules for adding a clue
(rulebook, "Правила добавления ключей"), on the classic island with fixed landmarks."""

import pytest

from domain.tobago.clues import board, clue_refusal
from domain.tobago.components import CLUES
from domain.tobago.island import bits, distance
from tests.domain.tobago.support import GEO, table

STATE = table()
BOARD = board(STATE.island, STATE.landmarks)
LAND = range(GEO.n)


def allowed(card: str) -> set[int]:
    return set(bits(BOARD.masks[card]))


def terrain(t: str) -> set[int]:
    return {i for i in LAND if GEO.terrain[i] == t}


def near(xs: set[int], low: int, high: int) -> set[int]:
    """Land hexes at hex distance low..high from some hex of `xs` (geometric distance)."""
    return {i for i in LAND if any(low <= distance(GEO.coords[i], GEO.coords[x]) <= high for x in xs)}


def ocean_distance(i: int) -> int:
    return GEO.ocean_dist[i]


HUTS = set(STATE.landmarks.huts)
STATUES = set(STATE.landmarks.statues)
BIG_JUNGLE = set(bits(GEO.big["jungle"]))


def test_in_a_terrain_is_that_terrain():
    assert allowed("C01") == terrain("jungle") and allowed("C06") == terrain("river")


def test_in_the_big_jungle_is_only_the_largest_jungle_region():
    assert allowed("C07") == BIG_JUNGLE < terrain("jungle")


def test_not_in_is_the_complement_over_land():
    assert allowed("C13") == set(LAND) - terrain("jungle")
    assert allowed("C19") == set(LAND) - BIG_JUNGLE


def test_next_to_excludes_x_itself():
    assert allowed("C22") == near(terrain("jungle"), 1, 1) - terrain("jungle")
    assert allowed("C29") == near(HUTS, 1, 1) - HUTS
    assert not allowed("C31") & STATUES


def test_next_to_the_big_mountains_excludes_the_big_mountains():
    big = set(bits(GEO.big["mountains"]))
    assert allowed("C32") == near(big, 1, 1) - big


def test_not_next_to_includes_x_itself():
    assert allowed("C40") == set(LAND) - (near(STATUES, 1, 1) - STATUES)
    assert STATUES <= allowed("C40")


def test_within_sight_is_distance_one_or_two_and_excludes_x():
    assert allowed("C42") == near(HUTS, 1, 2) - HUTS
    assert not HUTS & allowed("C42")


def test_beyond_sight_is_distance_above_two_or_on_x():
    assert allowed("C48") == (set(LAND) - near(HUTS, 1, 2)) | HUTS
    assert HUTS <= allowed("C48")


def test_ocean_clues_measure_distance_to_the_water():
    assert allowed("C28") == {i for i in LAND if ocean_distance(i) == 1}
    assert allowed("C34") == {i for i in LAND if ocean_distance(i) > 1}
    assert allowed("C41") == {i for i in LAND if ocean_distance(i) <= 2}
    assert allowed("C51") == {i for i in LAND if ocean_distance(i) > 2}


def test_every_card_is_either_a_relation_or_its_complement():
    pairs = {"in": "not_in", "next_to": "not_next_to", "within_sight": "beyond_sight"}
    for card in CLUES.values():
        for twin in CLUES.values():
            if pairs.get(card.relation) == twin.relation and (card.target, card.big) == (twin.target, twin.big):
                assert allowed(card.id) | allowed(twin.id) == set(LAND)
                assert not allowed(card.id) & allowed(twin.id)


def test_rulebook_example_next_to_a_hut_then_in_the_jungle_then_next_to_a_palm():
    # "Анна добавила ключ «В джунглях» к карте ... рядом с хижиной" then Boris adds «Рядом с пальмой»
    first = allowed("C29")
    assert clue_refusal(BOARD, ("C29",), (), "C01") is None
    second = first & terrain("jungle")
    assert 0 < len(second) < len(first)
    palms = set(STATE.landmarks.palms)
    assert clue_refusal(BOARD, ("C29", "C01"), (), "C30") is None
    third = second & (near(palms, 1, 1) - palms)
    assert set(bits(BOARD.masks["C29"] & BOARD.masks["C01"] & BOARD.masks["C30"])) == third
    assert 0 < len(third) < len(second)


@pytest.mark.parametrize("map_clues, code", [
    (("C13",), "tobago.clue_contradicts"),          # «Не в джунглях» already on the grey map
    (("C07",), "tobago.clue_does_not_reduce"),      # brown treasure is in the big jungle
    (("C31",), "tobago.clue_empties_map"),          # black: no jungle hex lies next to a statue
])
def test_rulebook_refusals_of_in_the_jungle(map_clues, code):
    assert clue_refusal(BOARD, map_clues, (), "C01").code == code


def test_a_clue_must_reduce_even_after_amulet_removals():
    jungle_hexes = sorted(terrain("jungle"))
    removed = tuple(h for h in range(GEO.n) if h not in jungle_hexes)
    assert clue_refusal(BOARD, (), removed, "C01").code == "tobago.clue_does_not_reduce"
