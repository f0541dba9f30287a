"""What each Tikal command did, in words: the phrase of the event that is the command's own result.

The table shows the latest such event, as the viewer may see it, in the view's `last` field
(`kernel.describe`); events that only follow from a command (scorings, the next tile) have none.
"""

from __future__ import annotations

from domain.tikal import events as e

PHRASES: dict[type, str] = {
    e.TilePlaced: "placed tile {tile} at ({q}, {r})",
    e.PieceEntered: "brought a piece into play at ({q}, {r})",
    e.PieceMoved: "moved a piece from ({from_q}, {from_r}) to ({to_q}, {to_r}) for {cost} AP",
    e.LevelUncovered: "uncovered level {value} of the temple at ({q}, {r})",
    e.TreasureDug: "dug treasure {treasure} at ({q}, {r})",
    e.TreasureTraded: "traded treasure {gave} for seat {other}'s {took}",
    e.CampBuilt: "built a camp at ({q}, {r})",
    e.GuardPlaced: "placed a guard on the temple at ({q}, {r})",
    e.TurnEnded: "ended the turn",
    e.BidMade: "bid {amount} points",
    e.BidPassed: "passed in the auction",
    e.TileTaken: "took tile {tile}",
}
