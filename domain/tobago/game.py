"""Tobago bound into the kernel's Game record (kind `tobago`)."""

from __future__ import annotations

from domain.kernel import Game
from domain.tobago import bot, options, rules, setup, state, svg, view, words
from domain.tobago.codes import CODES
from domain.tobago.commands import TobagoCommand
from domain.tobago.components import CATALOGUE
from domain.tobago.events import TobagoEvent
from domain.tobago.evolve import evolve

GAME = Game(
    kind="tobago", title="Tobago", min_players=2, max_players=4, codes=CODES,
    options_type=options.TobagoOptions, command_type=TobagoCommand, event_type=TobagoEvent,
    state_type=state.TobagoState, view_type=view.TobagoView, components=CATALOGUE,
    setup=setup.setup, evolve=evolve, decide=rules.decide, legal=rules.legal, to_act=rules.to_act,
    view=view.view, redact=view.redact, outcome=rules.outcome,
    invariants=state.invariants, board_svg=svg.board_svg, bot_scores=bot.scores, phrases=words.PHRASES,
)
