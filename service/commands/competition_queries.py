"""A competition's reads as the routes answer them, for every format (a tournament's, an arena's): its event
page as every reader sees it (`event_page`, seeds hidden until the end) and a part of a tournament's report
as CSV (`report_table`), with the event shapes they publish."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from service.commands.competition import Competition, redacted
from service.commands.tournaments import Tournaments, report_csv
from service.commands.visibility import WireEvent


class TournamentEventOut(WireEvent, frozen=True, kw_only=True, omit_defaults=True):
    """One stored event of a competition of any format (a tournament's, an arena's), as readers see it now: a
    game's event shape under a name of its own in the document (a competition's events are no game's union),
    with the fields a game's export carries to recompute its chain and its transparency log leaves: the
    `stream_id` the log names the competition by, and once the competition has ended, `prev_hash` and `hash`
    (`service.commands.competition.redacted`; `stela verify report.json --log URL` checks them)."""

    stream_id: Annotated[str, Meta(description=(
        "the competition's stream, as the transparency log names it: `tournament-<id>` or `arena-<id>`"),
        examples=["tournament-0f6f2c38-5b1e-4c6a-9a37-1d2f4c5e6a7b"])]
    prev_hash: Annotated[str, Meta(description="the chain hash of the event before (64 zeros before the first); "
                                               "shown once the competition has ended")] | None = None
    hash: Annotated[str, Meta(description=(
        "SHA-256 of the canonical JSON of [prev_hash, stream_id, version, type as stored, data]; shown once "
        "the competition has ended"))] | None = None


class TournamentEvents(msgspec.Struct, kw_only=True):
    version: int
    events: list[TournamentEventOut]


async def event_page(competitions: Competition[Any], competition_id: str, after: int) -> TournamentEvents:
    """A competition's events after version `after`, as every reader sees them (seeds hidden until the end)."""
    state, stored = await competitions.events(competition_id, after)
    return TournamentEvents(version=state.version,
                            events=[TournamentEventOut(**redacted(state, e)) for e in stored])


async def report_table(tournaments: Tournaments, tournament_id: str, part: Literal["standings", "pairings"]) -> str:
    """One table of the tournament's report as RFC 4180 CSV: its standings or its pairings."""
    return report_csv((await tournaments.load(tournament_id)).state, part)
