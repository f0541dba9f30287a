"""The platform decider: a game's lifecycle around its rules.

A stream starts with `GameCreated` (options and the seed's commitment),
then `SeatTaken` for each player, `GameStarted` followed by the game's own
setup events, the game's events, and finally `GameEnded` (the outcome) and
`SeedRevealed`. `Table` wraps one `Game` so that games hold only their rules;
the stream version (number of events so far) seeds the `Rng` of every
decision, so a revealed seed lets anyone re-derive each random outcome.

The parts follow a game's skeleton: `events`, `commands`, `codes`, `state`,
`options` (the options check), `rules` (the decisions), `evolve` (one function
per platform event), `view` (reading for a seat), `codec` (the wire and
snapshots), and `game` binding them into `Table`. The names other code
uses are re-exported here.
"""

from domain.table.codes import TABLE_CODES
from domain.table.commands import Resign, TableCommand
from domain.table.events import (TABLE_EVENTS, GameAborted, GameCreated, GameEnded, GameStarted, SeatLeft,
                                 SeatResigned, SeatTaken, SeedRevealed, TableEvent)
from domain.table.game import Table
from domain.table.state import SeatInfo, Status, TableState

__all__ = [
    "TABLE_CODES", "TABLE_EVENTS", "GameAborted", "GameCreated", "GameEnded", "GameStarted", "Resign", "SeatInfo",
    "SeatLeft", "SeatResigned", "SeatTaken", "SeedRevealed", "Status", "Table", "TableCommand", "TableEvent",
    "TableState",
]
