"""Duplicate deals: which games share one deal, and whether the deal is still sealed.

In a duplicate tournament every table of a round plays the same game seed: the round's tables are
one *deal*. Until every table of a deal has finished, what any of its tables shows beyond a seat's
own view (the revealed seed, the full log, the result) tells the other tables their future, so the
deal is *sealed*. The tournament knows a table has finished once its result is recorded; the
service, which sees the games themselves, opens a deal as soon as the last of its games has ended
(`service.commands.visibility`), and this module tells it which games to look at.
"""

from __future__ import annotations

import msgspec

from domain.tournament.state import RoundRecord, TournamentState


def deal_round(state: TournamentState, game_id: str) -> RoundRecord | None:
    """The round whose deal `game_id` belongs to, or None when it is no game of a duplicate round."""
    where = state.games.get(game_id)
    if where is None or not state.settings.duplicate:
        return None
    return state.rounds[where[0] - 1]


def unrecorded(state: TournamentState, game_id: str) -> list[str]:
    """The games of `game_id`'s deal whose result is not recorded yet (empty: not a deal, or all recorded)."""
    record = deal_round(state, game_id)
    if record is None:
        return []
    return [t.game_id for t in record.tables if not state.done(t)]


def sealed_round(state: TournamentState, round_: int) -> bool:
    """Is round `round_` a duplicate deal with a table whose result is not recorded yet?"""
    if not state.settings.duplicate or not 1 <= round_ <= len(state.rounds):
        return False
    return any(not state.done(t) for t in state.rounds[round_ - 1].tables)


def unsealed(state: TournamentState) -> TournamentState:
    """`state` as the public may see it: the recorded results of a sealed deal not yet counted.

    Only points, games played and who met whom are taken back (what standings and tie-breaks read),
    so the standings of a duplicate tournament change only once a whole deal has been played.
    """
    if not state.rounds or not sealed_round(state, state.round):
        return state
    entrants = dict(state.entrants)
    for table in state.rounds[-1].tables:
        if table.points is None:
            continue
        for seat, pid in enumerate(table.players):
            e = entrants[pid]
            met = dict(e.met)
            for other in table.players:
                if other != pid:
                    met[other] -= 1
                    if not met[other]:
                        del met[other]
            entrants[pid] = msgspec.structs.replace(e, points=e.points - table.points[seat], games=e.games - 1,
                                                    met=met)
    return msgspec.structs.replace(state, entrants=entrants)
