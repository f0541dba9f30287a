"""What each Tobago command did, in words: the phrase of the event that is the command's own result.

The table shows the latest such event, as the viewer may see it, in the view's `last` field
(`kernel.describe`); the phrases name no card another seat may not see.
"""

from __future__ import annotations

from domain.tobago import events as e

PHRASES: dict[type, str] = {
    e.AtvPlaced: "placed the ATV",
    e.CluePlayed: "played a clue on map {map}",
    e.HandExchanged: "exchanged {count} clue cards",
    e.Drove: "drove {steps} step(s)",
    e.TreasureCollected: "collected the treasure of map {map}",
    e.CandidateRemoved: "removed a candidate hex from map {map}",
    e.RoseDoubled: "doubled a rose on map {map}",
    e.RosesSwapped: "swapped two roses on map {map}",
    e.CardTaken: "took the offered treasure card",
    e.CardPassed: "passed the offered treasure card",
    e.TurnEnded: "ended the turn",
}
