"""What each Gold Mine command did, in words: the phrase of the event that is the command's own result.

The table shows the latest such event, as the viewer may see it, in the view's `last` field
(`kernel.describe`).
"""

from __future__ import annotations

from domain.goldmine import events as e

PHRASES: dict[type, str] = {
    e.TilePlaced: "placed a tile at ({x}, {y})",
    e.DiceRolled: "rolled {dice}",
    e.Stayed: "stayed",
    e.PirateMoved: "moved a pirate to ({x}, {y})",
    e.CoinTaken: "took a coin at ({x}, {y})",
    e.ChallengeResolved: "challenged seat {defender}: seat {winner} won",
    e.CoinPlaced: "placed the coin at ({x}, {y})",
    e.CoinLeft: "left the coin",
    e.CoinsPassed: "passed {amount} coin(s) to seat {to}",
    e.TurnEnded: "ended the turn",
}
