"""Each view says what the latest command did, in words a front end can show (issue 24; DESIGN "Views":
one envelope for every kind), as that viewer may see it: never a secret of another seat."""

import string

import msgspec
import pytest

from domain.catalog import GAMES
from domain.kernel import Phrase, Rng, describe
from domain.simulate import start_table
from domain.table import Table
from domain.tobago.events import CluePlayed, HandExchanged

KINDS = sorted(GAMES)


@pytest.mark.parametrize("kind", KINDS)
def test_after_every_command_every_view_names_its_sender_and_what_it_did(kind):
    # issue 44: the sender, not a seat the command acted upon (Gold Mine's bats and bets), and never the
    # command before (an Explore)
    table = Table(GAMES[kind])
    commands = 0
    for game in range(3):
        state, _ = start_table(table, {}, 3, f"last/{kind}/{game}".encode())
        bot = Rng(f"senders/{kind}/{game}".encode(), 0)
        while state.status == "active" and commands < 300 * (game + 1):
            sender = bot.choice(sorted(table.to_act(state)))
            new = table.play(state, sender, bot.choice(table.legal(state, sender)))
            state = table.fold(new, state)
            commands += 1
            tags = [type(e).__struct_config__.tag for e in new]
            for seat in (None, 0, 1, 2):
                last = table.view(state, seat).last
                assert last is not None and last.text and last.seat == sender and last.event in tags, (tags, last)
    assert commands > 100


def test_a_phrase_reads_hidden_for_a_field_the_viewer_may_not_see():
    phrases = GAMES["tobago"].phrases
    seen = GAMES["tobago"].redact(HandExchanged(seat=0, count=3, cards=["C01", "C02", "C03"], main_action=True), 1)
    assert describe(phrases, seen).text == "exchanged 3 clue cards"
    assert describe(phrases, CluePlayed(seat=1, map=2, card="C07", hunt=False, from_deck=False, main_action=True)).text == "played a clue on map 2"
    assert "C07" not in describe(phrases, CluePlayed(seat=1, map=2, card="C07", hunt=False, from_deck=False, main_action=True)).text


@pytest.mark.parametrize("kind", KINDS)
def test_no_phrase_names_a_field_that_does_not_exist(kind):
    for event_type, phrase in GAMES[kind].phrases.items():
        phrase = Phrase(phrase) if isinstance(phrase, str) else phrase
        names = {f.name for f in msgspec.structs.fields(event_type)}
        used = {name for _, name, _, _ in string.Formatter().parse(phrase.text) if name}
        assert used <= names, f"{event_type.__name__}: {used - names}"
        assert phrase.sender in names, f"{event_type.__name__} does not name its sender"
