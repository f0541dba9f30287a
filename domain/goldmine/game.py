"""Gold Mine ("Шакал. Подземелье") bound into the `domain.kernel.Game` protocol as `GAME`.

Rules: /work/shared/games/goldmine.md. The package splits the decider into
setup (opening and draws), rules (tiles and movement), actions (coins and
challenges), evolve, view and the cave geometry in board.
"""

from __future__ import annotations

from domain.goldmine import bot, rules
from domain.goldmine.board import steps_home
from domain.goldmine.commands import GoldmineCommand
from domain.goldmine.evolve import evolve
from domain.goldmine.events import GoldmineEvent
from domain.goldmine.setup import setup
from domain.goldmine.state import GoldmineOptions, GoldmineState, cells, position, team, team_coins
from domain.goldmine.view import redact, view
from domain.kernel import Outcome, Rng, ranked

CODES = {
    "goldmine.bad_options": "the options do not fit the number of players (five_tiles: 2-4 and mud; "
                            "alliances: 4 or 6; turn_cap >= 0)",
    "goldmine.game_over": "the game is over",
    "goldmine.not_your_turn": "another seat must act now",
    "goldmine.wrong_phase": "this command does not belong to the current step of the turn",
    "goldmine.unknown_command": "the command is not a Gold Mine command",
    "goldmine.tile_does_not_fit": "the tile must go on an empty cell touching the cave with every side matching",
    "goldmine.nothing_to_explore": "no tile left in the stack fits anywhere",
    "goldmine.not_in_hand": "the tile is not among your five tiles",
    "goldmine.not_on_secret_passage": "the secret passage needs the turn to start on a secret-passage entrance",
    "goldmine.too_far": "the destination is not reachable along connected paths within the die",
    "goldmine.not_connected": "after exploring, the only step is onto the new tile along your path",
    "goldmine.not_a_secret_passage": "the secret passage leads only to another secret-passage entrance",
    "goldmine.no_coin_here": "you do not stand on a gold chamber holding a coin",
    "goldmine.bad_target": "challenge another pirate, not yourself or your ally",
    "goldmine.no_token_left": "you have no token of that kind left",
    "goldmine.not_same_tile": "a bet needs both pirates on the same tile",
    "goldmine.no_coins": "a bet needs both pirates holding at least one coin",
    "goldmine.not_a_free_chamber": "the bet coin goes on a gold chamber with no coin and neither duelist on it",
    "goldmine.no_partner_here": "coins pass only to your ally on the same tile and path",
    "goldmine.bad_amount": "pass between 1 and the coins you hold",
}


class GoldMine:
    """The Game protocol for Gold Mine."""

    kind = "goldmine"
    title = "Gold Mine"
    codes = CODES
    min_players = 2
    max_players = 6
    options_type = GoldmineOptions
    command_type = GoldmineCommand
    state_type = GoldmineState
    event_type = GoldmineEvent

    def setup(self, options: GoldmineOptions, seats: int, rng: Rng) -> list[GoldmineEvent]:
        return setup(options, seats, rng)

    def evolve(self, state: GoldmineState | None, event: GoldmineEvent) -> GoldmineState:
        return evolve(state, event)

    def decide(self, state: GoldmineState, seat: int, command: GoldmineCommand, rng: Rng) -> list[GoldmineEvent]:
        return rules.decide(state, seat, command, rng)

    def legal(self, state: GoldmineState, seat: int) -> list[GoldmineCommand]:
        return rules.legal(state, seat)

    def to_act(self, state: GoldmineState) -> frozenset[int]:
        return rules.to_act(state)

    def view(self, state: GoldmineState, seat: int | None):  # noqa: ANN201 - a GoldmineView
        return view(state, seat)

    def redact(self, event: GoldmineEvent, seat: int | None) -> GoldmineEvent | None:
        return redact(event, seat)

    def outcome(self, state: GoldmineState) -> Outcome | None:
        return outcome(state)

    def bot_weights(self, state: GoldmineState, seat: int, commands: list[GoldmineCommand]) -> list[int]:
        """How a random-play bot leans among `commands` (one weight each; see `bot.py`)."""
        return bot.weights(state, seat, commands)


def outcome(state: GoldmineState) -> Outcome | None:
    """None while running; then winners first, then (team) coins, then fewest steps home."""
    if not state.over:
        return None
    board = cells(state)
    home = [steps_home(board, position(p)) for p in state.pirates]
    keys = [(1 if s in state.winners else 0, team_coins(state, s), -sum(home[t] for t in team(state, s)))
            for s in range(state.seats)]
    result = ranked([p.coins for p in state.pirates], keys)
    details = {"capped": state.capped, "turns": state.turns, "steps_home": home}
    if state.options.alliances:
        details["teams"] = sorted({team(state, s) for s in range(state.seats)})
    return Outcome(scores=result.scores, ranks=result.ranks, winners=result.winners, details=details)


GAME = GoldMine()
