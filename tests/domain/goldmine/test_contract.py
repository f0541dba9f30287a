"""The Game contract details: documented codes, documented options, the catalog entry."""

import pathlib
import re

import msgspec

from domain.catalog import GAMES
from domain.goldmine.game import GAME
from domain.goldmine.state import GoldmineOptions

PACKAGE = pathlib.Path(__file__).parents[3] / "domain" / "goldmine"


def test_every_rule_violation_code_raised_is_documented():
    source = "\n".join(p.read_text() for p in PACKAGE.glob("*.py"))
    raised = set(re.findall(r'"(goldmine\.[a-z_]+)"', source))
    assert raised <= set(GAME.codes), raised - set(GAME.codes)
    assert {"goldmine.tile_does_not_fit", "goldmine.too_far", "goldmine.not_on_secret_passage",
            "goldmine.no_coin_here", "goldmine.no_token_left", "goldmine.bad_options"} <= set(GAME.codes)


def test_the_options_schema_documents_every_variant_and_empty_options_are_valid():
    schema = msgspec.json.schema(GoldmineOptions)
    props = schema["$defs"]["GoldmineOptions"]["properties"]
    assert set(props) == {"mud", "five_tiles", "alliances", "turn_cap"}
    assert all(p.get("description") for p in props.values())
    assert msgspec.convert({}, GoldmineOptions) == GoldmineOptions()


def test_goldmine_is_registered_in_the_catalog_with_its_shipped_tiles():
    assert GAMES["goldmine"] is GAME and (GAME.min_players, GAME.max_players) == (2, 6)
    assert (PACKAGE / "goldmine-tiles.json").is_file()
