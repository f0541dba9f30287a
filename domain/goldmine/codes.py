"""Gold Mine's documented rule-violation codes: every `RuleViolation` the package raises."""

from __future__ import annotations

CODES = {
    "goldmine.bad_options": "the options do not fit the number of players (five_tiles: 2-4 and mud; "
                            "alliances: 4 or 6; max_rounds >= 0)",
    "goldmine.game_over": "the game is over",
    "goldmine.not_your_turn": "another seat must act now",
    "goldmine.wrong_phase": "this command does not belong to the current step of the turn",
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
