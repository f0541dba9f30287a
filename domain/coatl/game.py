"""Cóatl declared as a kernel `Game` record: `GAME` binds its rules, view and components."""

from __future__ import annotations

from domain.coatl import bot, words
from domain.coatl.codes import CODES
from domain.coatl.commands import CoatlCommand
from domain.coatl.components import CATALOGUE
from domain.coatl.events import CoatlEvent
from domain.coatl.evolve import evolve
from domain.coatl.rules import decide, legal, outcome, to_act
from domain.coatl.options import CoatlOptions
from domain.coatl.setup import setup
from domain.coatl.state import CoatlState, invariants
from domain.coatl.view import CoatlView, redact, view
from domain.kernel import Game

GAME = Game(
    kind="coatl", title="Cóatl", min_players=2, max_players=4, codes=CODES, options_type=CoatlOptions,
    command_type=CoatlCommand, event_type=CoatlEvent, state_type=CoatlState, view_type=CoatlView,
    components=CATALOGUE, setup=setup, evolve=evolve, decide=decide, legal=legal, to_act=to_act, view=view,
    redact=redact, outcome=outcome, invariants=invariants, bot_scores=bot.scores, phrases=words.PHRASES,
)
