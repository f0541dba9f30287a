"""stela-client: a typed Python client of the Stela board-game API, async (`Client`) and synchronous
(`SyncClient`), with the same operations.

    from stela_client import Client, SyncClient

    async with Client("http://localhost:8000") as ann:
        await ann.register("Ann")
        game = await ann.create_game("coatl", seats=2)

    with SyncClient("http://localhost:8000") as bob:
        bob.sign_in("bob", "a long password")

See `clients/python/README.md` for the tour: sign-in, commands with safe retries, the typed errors,
and the streams that resume by themselves.
"""

from stela_client.calls import OPERATIONS, Api, Call, path_of
from stela_client.client import Client
from stela_client.codec import decode
from stela_client.errors import (
    Conflict, Forbidden, InvalidRequest, NotFound, RateLimited, RuleViolation, ServerError, StelaError,
    TransportError, Unauthorized, Unavailable, VersionConflict, error_for,
)
from stela_client.models import (
    AnyFrame, App, AuthorizedApp, Command, CommandResult, Consent, End, Event, EventFrame, EventPage, Game, GameEnded,
    GameFrame, GameItem, GamePage, GameStarted, GameState, Health, Legal, Login, Me, Notice, NoticeFrame, OAuthTokens,
    Outcome, Player, PlayerGame, PlayerGamePage, PlayerInfo, Ready, Redirect, Seat, Session, Snapshot, Ticket,
    TokenCreated, TokenInfo, Turn, View, YourTurn,
)
from stela_client.oauth import AuthorizationRequest, OAuthDenied, StateMismatch, authorization_request, s256
from stela_client.ratelimit import Pacer, RateLimit
from stela_client.retry import Backoff, Counters, retry_after
from stela_client.sse import Message, SseParser
from stela_client.streams import ArenaStream, GameStream, MultiStream, PersonalStream, TournamentStream
from stela_client.sync import SyncClient
from stela_client.transport import (
    AiohttpTransport, HttpxTransport, Response, SyncHttpxTransport, SyncTransport, Transport,
)

__all__ = [
    "AiohttpTransport", "AnyFrame", "Api", "App", "ArenaStream", "authorization_request", "AuthorizationRequest",
    "AuthorizedApp", "Backoff", "Call", "Client", "Command", "CommandResult", "Conflict", "Consent", "Counters",
    "decode", "End", "error_for", "Event", "EventFrame", "EventPage", "Forbidden", "Game", "GameEnded", "GameFrame",
    "GameItem", "GamePage", "GameStarted", "GameState", "GameStream", "Health", "HttpxTransport", "InvalidRequest",
    "Legal", "Login", "Me", "Message", "MultiStream", "NotFound", "Notice", "NoticeFrame", "OAuthDenied",
    "OAuthTokens", "OPERATIONS", "Outcome", "Pacer", "path_of", "PersonalStream", "Player", "PlayerGame",
    "PlayerGamePage", "PlayerInfo", "RateLimit", "RateLimited", "Ready", "Redirect", "Response", "retry_after",
    "RuleViolation", "s256", "Seat", "ServerError", "Session", "Snapshot", "SseParser", "StateMismatch",
    "StelaError", "SyncClient", "SyncHttpxTransport", "SyncTransport", "Ticket", "TokenCreated", "TokenInfo",
    "TournamentStream", "Transport", "TransportError", "Turn", "Unauthorized", "Unavailable", "VersionConflict",
    "View", "YourTurn",
]
