"""What each Gold Mine command did, in words: the phrase of the event that is the command's own result.

The table shows the latest such event, as the viewer may see it, in the view's `last` field
(`kernel.describe`), naming the seat that sent the command: the bats winner who moved (or left) the
loser's pirate, the bet's winner who placed (or left) the loser's coin, the explorer whose tile was drawn.
"""

from __future__ import annotations

from domain.goldmine import events as e
from domain.kernel import Phrase

PHRASES: dict[type, str | Phrase] = {
    e.TilePlaced: "placed a tile at ({x}, {y})",
    # Explore's own result; a tile the scout map turns up (from the stack too) after a placement is not
    e.TileDrawn: Phrase("explored and drew tile {tile} from the {source}", when=lambda state, _: state.phase != "scout"),
    e.DiceRolled: "rolled {dice}",
    e.Stayed: Phrase("left seat {seat}'s pirate where it stood", sender="by"),
    e.PirateMoved: Phrase("moved seat {seat}'s pirate to ({x}, {y})", sender="by"),
    e.CoinTaken: "took a coin at ({x}, {y})",
    e.ChallengeResolved: Phrase("challenged seat {defender}: seat {winner} won", sender="challenger"),
    e.CoinPlaced: Phrase("placed seat {loser}'s coin at ({x}, {y})", sender="by"),
    e.CoinLeft: Phrase("left seat {loser}'s coin with it", sender="by"),
    e.CoinsPassed: "passed {amount} coin(s) to seat {to}",
    e.TurnEnded: "ended the turn",
}
