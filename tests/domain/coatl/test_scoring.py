"""Scoring of every prophecy face and temple card (spec: Scoring; data: scoring_kinds).

Each face has a real coatl that scores it and one that does not; the tricky
readings the spec and the rulebook's card clarifications name get their own tests.
"""

import pytest

from domain.coatl.components import PROPHECIES, TEMPLES
from domain.coatl.scoring import coatl_points, occurrences, prophecy_met, prophecy_points, temple_points
from tests.domain.coatl.builders import seq

# type: (a coatl that scores, its points, a coatl that scores nothing)
PROPHECY_CASES = {
    0: ("YRYKY", 2, "YYRKG"), 1: ("RRRR", 3, "RRGB"), 2: ("KKKKK", 4, "KYK"), 3: ("GGGGGGG", 5, "GGBY"),
    4: ("BYBRB", 2, "BBYR"),
    5: ("YYR", 2, "YYYR"), 6: ("GRRKRRG", 5, "RRR"), 7: ("KK", 2, "KKKK"), 8: ("BGGB", 2, "GBG"),
    9: ("BBYBB", 5, "BBB"),
    10: ("YYY", 3, "YYRYY"), 11: ("RRRRRR", 7, "RRGRR"), 12: ("KKKK", 3, "KK"), 13: ("GGGBGGG", 7, "GGBG"),
    14: ("BBBBB", 3, "BBYB"),
    15: ("YG", 1, "GY"), 16: ("RKRKRK", 5, "KR"), 17: ("YBYB", 3, "BY"), 18: ("GBRGB", 3, "BG"),
    19: ("KG", 1, "KYG"), 20: ("YKYKYKYK", 5, "KY"), 21: ("RB", 1, "BR"),
    22: ("KBKB", 5, "KBBKB"), 23: ("GYRYRG", 5, "YRRYR"), 24: ("RGRG", 5, "RGGRG"),
    25: ("RRRGG", 6, "RRGGG"), 26: ("YKKGGGY", 6, "KGGG"), 27: ("YYBBB", 6, "YYBB"),
    28: ("BBYY", 4, "BYY"), 29: ("RRBB", 4, "RRKBB"), 30: ("KKYY", 4, "KKY"), 31: ("GGRR", 4, "GRR"),
    32: ("YKRGB", 7, "YKRGGB"), 33: ("RKBYG", 7, "RKBYYG"), 34: ("BKGRBYR", 7, "KGRBR"),
    35: ("YKR", 2, "YR"), 36: ("GYYYK", 2, "GYBK"), 37: ("YBGYBBG", 6, "YGB"), 38: ("BGK", 2, "BGGBK"),
    39: ("RKKKB", 2, "RBK"), 40: ("RBY", 2, "RYB"), 41: ("GRK", 2, "GRRG"), 42: ("GYG", 2, "GYYK"),
    43: ("BGBBGB", 6, "BGGYB"),
    44: ("KYRYK", 4, "KYYK"), 45: ("GKBBKG", 4, "GKKG"), 46: ("KBYYYBK", 4, "KBBK"), 47: ("YRGRY", 4, "YRRY"),
    48: ("RBKBR", 4, "RBRB"),
    49: ("YGRGY", 3, "YGRG"), 50: ("KBRBK", 3, "KBRB"), 51: ("RKGKR", 3, "RKGK"), 52: ("YKRBKY", 4, "YKRBK"),
    53: ("GBYKBG", 4, "GBYKB"), 54: ("YRGBRY", 4, "YRGBR"),
}

# type: (a coatl that meets one requirement, one meeting none)
TEMPLE_CASES = {
    0: ("RRR", "YRRR"), 1: ("YYRR", "KYR"), 2: ("BBYBBRRBBYY", "GRR"), 3: ("YYY", "BYY"), 4: ("GKG", "RGG"),
    5: ("RYK", "RRY"), 6: ("YGB", "YYG"), 7: ("BKR", "BBK"), 8: ("RGB", "RRG"), 9: ("BYR", "BBY"),
    10: ("BRK", "KBB"), 11: ("KRB", "BKK"), 12: ("KYGG", "GKK"), 13: ("BGRR", "RBB"), 14: ("KGYY", "YKK"),
    15: ("RBGGY", "RRB"), 16: ("YKGG", "YYK"), 17: ("Y" * 11, "YY"), 18: ("RRRRGGGG", "RR"), 19: ("KKKR", "GGR"),
}
# a card beside the coatl breaking the promo temples' 'no prophecy card of this colour' requirement
TEMPLE_CARDS = {15: (15,), 16: (0,), 17: (10,), 18: (35,), 19: (28,)}


def test_every_prophecy_face_and_temple_has_a_case():
    assert set(PROPHECY_CASES) == set(PROPHECIES) and set(TEMPLE_CASES) == set(TEMPLES)


@pytest.mark.parametrize("prophecy_type", sorted(PROPHECY_CASES))
def test_each_prophecy_face_scores_its_pattern_and_not_a_near_miss(prophecy_type):
    scoring, points, missing = PROPHECY_CASES[prophecy_type]
    assert prophecy_points(prophecy_type, seq(scoring)) == points
    assert prophecy_met(prophecy_type, seq(scoring))
    assert prophecy_points(prophecy_type, seq(missing)) == 0
    assert not prophecy_met(prophecy_type, seq(missing))


@pytest.mark.parametrize("temple_type", sorted(TEMPLE_CASES))
def test_each_temple_scores_a_met_requirement_and_nothing_without_one(temple_type):
    meeting, missing = TEMPLE_CASES[temple_type]
    cards = TEMPLE_CARDS.get(temple_type, ())
    assert temple_points(temple_type, seq(meeting), cards) == 3
    assert temple_points(temple_type, seq(missing), cards) == 0


def test_rulebook_example_coatl_is_worth_17_points():
    """Rulebook, 'Приклад підрахунку очок': B B Y B B R R B B Y Y with cards 28, 9, 4 and temple 2."""
    coatl = seq("BBYBBRRBBYY")
    assert prophecy_points(28, coatl) == 4
    assert occurrences(9, coatl) == 3 and prophecy_points(9, coatl) == 5
    assert prophecy_points(4, coatl) == 5
    assert temple_points(2, coatl) == 3
    assert coatl_points(coatl, [28, 9, 4], 2) == 17


def test_isolated_pairs_at_both_ends_count_and_a_border_piece_bounds_two_pairs():
    """Spec: the crossed-out borders are conditions, not used pieces; an end of the coatl is a border."""
    assert occurrences(9, seq("BBYBB")) == 2
    assert occurrences(9, seq("BB")) == 1
    assert occurrences(9, seq("BBB")) == 0 and occurrences(9, seq("BBBB")) == 0
    assert occurrences(7, seq("KKRKKRKK")) == 3 and prophecy_points(7, seq("KKRKKRKK")) == 5


def test_a_run_of_six_counts_twice_and_a_run_of_five_once():
    assert occurrences(10, seq("YYYYYY")) == 2 and prophecy_points(10, seq("YYYYYY")) == 7
    assert occurrences(10, seq("YYYYY")) == 1
    assert occurrences(10, seq("YYYGYYY")) == 2


def test_bracket_cards_with_equal_ends_never_share_the_bracket_piece():
    """Data: bracket occurrences do not share pieces, so G Y G Y G is one occurrence, G Y G G Y G two."""
    assert occurrences(42, seq("GYGYG")) == 1 and prophecy_points(42, seq("GYGYG")) == 2
    assert occurrences(42, seq("GYGGYYG")) == 2 and prophecy_points(42, seq("GYGGYYG")) == 6
    assert occurrences(43, seq("BGGGB")) == 1
    assert occurrences(42, seq("GG")) == 0


def test_five_colour_sequences_must_be_strictly_contiguous_and_in_order():
    assert prophecy_points(32, seq("RYKRGBR")) == 7
    assert prophecy_points(32, seq("YKRGKB")) == 0
    assert prophecy_points(32, seq("BGRKY")) == 0  # read head to tail, never reversed


def test_repeatable_sequences_cap_at_their_top_level():
    assert occurrences(15, seq("YGYGYGYG")) == 4 and prophecy_points(15, seq("YGYGYGYG")) == 5


def test_mirror_cards_need_at_least_one_piece_between_the_two_halves():
    assert prophecy_points(44, seq("KYYK")) == 0
    assert prophecy_points(44, seq("KYKYK")) == 4


def test_equal_counts_need_at_least_one_piece_of_each_colour():
    """Rulebook clarification of the temple cards: equal numbers, at least 1 each."""
    assert temple_points(10, seq("KKK")) == 0  # black present; no blue and no red is not "equal"
    assert temple_points(10, seq("YY")) == 3  # only "no black" is met
    assert temple_points(10, seq("BRYY")) == 7


def test_colour_count_cards_take_six_or_more_as_six():
    assert prophecy_points(0, seq("Y" * 9)) == 5


def test_each_card_scores_one_level_only_and_cards_reuse_pieces():
    coatl = seq("BBB")
    assert coatl_points(coatl, [14, 4], None) == 3 + 2


def test_temples_score_7_for_both_requirements_and_the_three_requirement_promo_10():
    assert temple_points(0, seq("RRRRRRR")) == 7
    assert temple_points(15, seq("RRBBGGGGGG"), (0,)) == 10
    assert temple_points(15, seq("RRBBGGGGG"), (0,)) == 6


def test_whether_a_card_can_be_played_is_worked_out_once_per_card_and_colour_sequence(monkeypatch):
    """`legal` asks it of every card in hand against every coatl (and every completing piece) at every
    version, as a list of colours: the same question is answered from memory, list or tuple alike."""
    import domain.coatl.scoring as scoring

    worked: list[int] = []
    counted = scoring.prophecy_points

    def counting(prophecy_type, colors):
        worked.append(prophecy_type)
        return counted(prophecy_type, colors)

    monkeypatch.setattr(scoring, "prophecy_points", counting)
    for memory in [f for f in vars(scoring).values() if hasattr(f, "cache_clear")]:
        memory.cache_clear()  # what an earlier test left there
    scoring_seq, _, missing = PROPHECY_CASES[0]
    for _ in range(3):
        assert prophecy_met(0, list(seq(scoring_seq))) and prophecy_met(0, tuple(seq(scoring_seq)))
        assert not prophecy_met(0, list(seq(missing)))
    assert worked == [0, 0]
