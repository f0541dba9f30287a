"""Tikal declared as a `domain.kernel.Game`: the rules live in the modules named below."""

from __future__ import annotations

from domain.kernel import Game
from domain.tikal import bot, options, rules, setup, view, words
from domain.tikal.codes import CODES
from domain.tikal.commands import TikalCommand
from domain.tikal.components import CATALOGUE
from domain.tikal.events import TikalEvent
from domain.tikal.evolve import evolve
from domain.tikal.state import TikalState, invariants

GAME = Game(
    kind="tikal", title="Tikal", min_players=options.MIN_PLAYERS, max_players=options.MAX_PLAYERS, codes=CODES,
    options_type=options.TikalOptions, command_type=TikalCommand, event_type=TikalEvent, state_type=TikalState,
    view_type=view.TikalView, components=CATALOGUE, setup=setup.setup, evolve=evolve, decide=rules.decide,
    legal=rules.legal, to_act=rules.to_act, view=view.view, redact=view.redact, outcome=rules.outcome,
    invariants=invariants, bot_scores=bot.scores, phrases=words.PHRASES)
