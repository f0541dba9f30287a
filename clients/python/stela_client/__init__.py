"""stela-client: an async, typed Python client of the Stela board-game API.

    from stela_client import Client

    async with Client("http://localhost:8000") as ann:
        await ann.register("Ann")
        game = await ann.create_game("coatl", seats=2)

See `clients/python/README.md` for the tour: sign-in, commands with safe retries, the typed errors,
and the streams that resume by themselves.
"""

from stela_client.client import Client, path_of
from stela_client.codec import decode
from stela_client.errors import (
    Conflict, Forbidden, InvalidRequest, NotFound, RateLimited, RuleViolation, ServerError, StelaError,
    TransportError, Unauthorized, Unavailable, VersionConflict, error_for,
)
from stela_client.models import (
    AnyFrame, Command, CommandResult, End, Event, EventFrame, EventPage, Game, GameEnded, GameFrame, GameItem,
    GamePage, GameStarted, GameState, Legal, Me, Notice, NoticeFrame, Outcome, Player, PlayerGame, PlayerGamePage,
    Ready, Seat, Snapshot, Ticket, Turn, View, YourTurn,
)
from stela_client.retry import Backoff, Counters, retry_after
from stela_client.sse import Message, SseParser
from stela_client.streams import GameStream, MultiStream, PersonalStream, TournamentStream
from stela_client.transport import AiohttpTransport, HttpxTransport, Response, Transport

__all__ = [
    "AiohttpTransport", "AnyFrame", "Backoff", "Client", "Command", "CommandResult", "Conflict", "Counters", "End",
    "Event", "EventFrame", "EventPage", "Forbidden", "Game", "GameEnded", "GameFrame", "GameItem", "GamePage",
    "GameStarted", "GameState", "GameStream", "HttpxTransport", "InvalidRequest", "Legal", "Me", "Message",
    "MultiStream", "Notice", "NoticeFrame", "NotFound", "Outcome", "PersonalStream", "Player", "PlayerGame",
    "PlayerGamePage", "RateLimited", "Ready", "Response", "RuleViolation", "Seat", "ServerError", "Snapshot",
    "SseParser", "StelaError", "Ticket", "TournamentStream", "Transport", "TransportError", "Turn", "Unauthorized",
    "Unavailable", "VersionConflict", "View", "YourTurn", "decode", "error_for", "path_of", "retry_after",
]
