"""Every RuleViolation code Tobago raises, with what it means (published with the kind)."""

from __future__ import annotations

CODES = {
    "tobago.bad_options": "the options do not fit (explicit landmarks need the classic island and the rules)",
    "tobago.not_your_turn": "another seat must act now",
    "tobago.wrong_phase": "that command is not possible in this phase of the game",
    "tobago.no_such_hex": "there is no such land hex",
    "tobago.no_such_map": "there is no such treasure map",
    "tobago.no_such_slot": "the map has no such clue",
    "tobago.not_in_hand": "the clue card is not in your hand",
    "tobago.clue_contradicts": "the clue contradicts a clue already on the map",
    "tobago.clue_does_not_reduce": "the clue removes no candidate",
    "tobago.clue_empties_map": "the clue would leave the map without any candidate",
    "tobago.no_roses": "you have no compass rose left",
    "tobago.already_acted": "the turn's action (clue, drive or exchange) is already taken",
    "tobago.action_required": "a turn needs its action before it ends",
    "tobago.empty_hand": "no clue card to exchange",
    "tobago.no_amulet": "you have no amulet to spend",
    "tobago.not_moving": "the ATV already stands on that hex",
    "tobago.too_far": "the hex is more drive steps away than you have left",
    "tobago.treasure_not_located": "the map has more than one candidate",
    "tobago.not_on_treasure": "your ATV is not on the located treasure",
    "tobago.no_markers": "the map's markers are not on the board (more than 17 candidates)",
    "tobago.not_a_candidate": "that hex is not a candidate of the map",
    "tobago.last_marker": "the last marker of a map may not be removed",
    "tobago.advanced_only": "the power needs the advanced_amulets option",
    "tobago.not_your_rose": "you may double only a clue holding your single rose",
    "tobago.already_double": "the clue already holds two roses",
    "tobago.bad_swap": "a swap exchanges your rose(s) with another player's",
}
