"""Gold Mine ("Шакал. Подземелье") declared as a `domain.kernel.Game`: rules in /work/shared/games/goldmine.md."""

from __future__ import annotations

from domain.goldmine import bot, rules, words
from domain.goldmine.codes import CODES
from domain.goldmine.commands import GoldmineCommand
from domain.goldmine.components import CATALOGUE
from domain.goldmine.events import GoldmineEvent
from domain.goldmine.evolve import evolve
from domain.goldmine.options import GoldmineOptions, upgrade_options
from domain.goldmine.setup import setup
from domain.goldmine.state import GoldmineState, invariants
from domain.goldmine.view import GoldmineView, redact, view
from domain.kernel import Game

GAME = Game(
    kind="goldmine", title="Gold Mine", min_players=2, max_players=6, codes=CODES,
    options_type=GoldmineOptions, command_type=GoldmineCommand, event_type=GoldmineEvent,
    state_type=GoldmineState, view_type=GoldmineView, components=CATALOGUE,
    setup=setup, evolve=evolve, decide=rules.decide, legal=rules.legal, to_act=rules.to_act,
    view=view, redact=redact, outcome=rules.outcome, invariants=invariants, bot_weights=bot.weights,
    bot_scores=bot.scores, phrases=words.PHRASES,
    upgrade_options=upgrade_options)
