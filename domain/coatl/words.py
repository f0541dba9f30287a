"""What each Cóatl command did, in words: the phrase of the event that is the command's own result.

The table shows the latest such event, as the viewer may see it, in the view's `last` field
(`kernel.describe`); a card another seat took or discarded face down reads "hidden".
"""

from __future__ import annotations

from domain.coatl import events as e

PHRASES: dict[type, str] = {
    e.OpeningHandKept: "kept the opening prophecies",
    e.PiecesTaken: "took pieces from {slot} slot {index}",
    e.PerfectChoiceUsed: "used Perfect Choice",
    e.ProphecyTaken: "took a prophecy card from the {source}",
    e.ForetellingUsed: "used Foretelling",
    e.ProphecyDiscarded: "discarded a prophecy card",
    e.PriestsDutyUsed: "used Priest's Duty",
    e.CoatlStarted: "started a coatl",
    e.PieceAdded: "added a piece to coatl {coatl}",
    e.ProphecyPlayed: "played prophecy card {card} on coatl {coatl}",
    e.TemplePlayed: "played temple card {temple} on coatl {coatl}",
    e.CoatlClosed: "closed coatl {coatl}",
    e.TurnEnded: "ended the turn",
}
