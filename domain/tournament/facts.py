"""The facts every format of a competition shares, each declared once: a player paused or withdrew, the
final order was recorded, the seed was revealed. Swiss, round robin, knockout, duplicate and arena all
write and fold these same classes; only what is a format's own (a round paired, an arena game scored)
is declared by the format (`events`, `arena.events`).

Their tags are the ones tournament logs have always held (`tournament.PlayerPaused`, ...). Arena logs
written before the formats shared them hold `arena.PlayerPaused`, `arena.PlayerLeft`, `arena.ArenaEnded`
and `arena.SeedRevealed` (same fields): `RENAMED` reads those as these classes (`codec.Codec`), and a
reader is shown the current tag, so every log, old or new, reads as one set of events.
"""

from __future__ import annotations

from domain.tournament.codec import Fact


class PlayerWithdrew(Fact, tag="tournament.PlayerWithdrew"):
    """`player_id` left for good (a tournament's withdrawal, an arena's leave); what they scored stays."""

    player_id: str


class PlayerPaused(Fact, tag="tournament.PlayerPaused"):
    """`player_id` is not paired until they come back (a tournament's resume, an arena's join)."""

    player_id: str


class TournamentEnded(Fact, tag="tournament.TournamentEnded"):
    """The final order, best first (every entrant, those who withdrew included)."""

    standings: list[str]


class SeedRevealed(Fact, tag="tournament.SeedRevealed"):
    """The competition's secret seed, revealed at its end (it matches the creation's commitment)."""

    seed: str


RENAMED = {"arena.PlayerPaused": "tournament.PlayerPaused", "arena.PlayerLeft": "tournament.PlayerWithdrew",
           "arena.ArenaEnded": "tournament.TournamentEnded", "arena.SeedRevealed": "tournament.SeedRevealed"}
"""The tags arena logs held before these facts were shared -> the shared tag (an upcast on decode)."""
