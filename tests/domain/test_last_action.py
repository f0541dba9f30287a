"""Each view says what the latest command did, in words a front end can show (issue 24; DESIGN "Views":
one envelope for every kind), as that viewer may see it: never a secret of another seat."""

import string

import msgspec
import pytest

from domain.catalog import GAMES
from domain.kernel import describe
from domain.simulate import play_random
from domain.table import Table
from domain.tobago.events import CluePlayed, HandExchanged

KINDS = sorted(GAMES)


@pytest.mark.parametrize("kind", KINDS)
def test_every_view_names_the_seat_that_acted_last_and_what_it_did(kind):
    table = Table(GAMES[kind])
    played = play_random(table, {}, 2, f"last/{kind}".encode(), max_commands=300, check_views=False)
    state, described = None, 0
    for event in played.events:
        state = table.evolve(state, event)
        if type(event) in GAMES[kind].phrases:
            for seat in (None, 0, 1):
                last = table.view(state, seat).last
                assert last is not None and last.text and last.event == type(event).__struct_config__.tag
                assert last.seat == msgspec.structs.asdict(event).get("seat", last.seat)
            described += 1
    assert described > 10


def test_a_phrase_reads_hidden_for_a_field_the_viewer_may_not_see():
    phrases = GAMES["tobago"].phrases
    seen = GAMES["tobago"].redact(HandExchanged(seat=0, count=3, cards=["C01", "C02", "C03"], main_action=True), 1)
    assert describe(phrases, seen).text == "exchanged 3 clue cards"
    assert describe(phrases, CluePlayed(seat=1, map=2, card="C07", hunt=False, from_deck=False, main_action=True)).text == "played a clue on map 2"
    assert "C07" not in describe(phrases, CluePlayed(seat=1, map=2, card="C07", hunt=False, from_deck=False, main_action=True)).text


@pytest.mark.parametrize("kind", KINDS)
def test_no_phrase_names_a_field_that_does_not_exist(kind):
    for event_type, phrase in GAMES[kind].phrases.items():
        names = {f.name for f in msgspec.structs.fields(event_type)}
        used = {name for _, name, _, _ in string.Formatter().parse(phrase) if name}
        assert used <= names, f"{event_type.__name__}: {used - names}"
