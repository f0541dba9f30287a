"""A third-party app on Stela, through the Python SDK only: sign a player in with OAuth 2.0 + PKCE, play a
game against a bot and follow it live.

    python clients/sample-app/play.py --url http://localhost:8000

What it does, as any app would:
1. It needs a registered app (a public client: no secret). `--client-id` names one; without it the script
   registers one for itself under a new developer player (redirect URI: its own loopback address).
2. It listens on http://127.0.0.1:<port>/back, builds an authorization request (state and S256 challenge,
   `stela_client.authorization_request`) and sends the player's browser to the consent page. With
   `--consent-token TOKEN` (tests, or a terminal with no browser) it approves as that player itself,
   doing what the consent page does (`describe_authorization`, `decide_authorization`), and follows the
   redirect to its own listener, as the browser would.
3. At /back it checks the state, exchanges the code with the verifier (`exchange_code`), and acts as the
   player: creates a game against a bot (`bots=`), follows it live on the multiplexed stream and plays a
   random legal command whenever the stream says it is the player's turn, until the game ends.
4. It refreshes its tokens once (rotation) and logs out (RFC 7009 `revoke_grant`).
"""

from __future__ import annotations

import argparse
import http.server
import random
import threading
import urllib.request
import webbrowser
from urllib.parse import urlsplit

from stela_client import EventFrame, SyncClient, Turn, VersionConflict, authorization_request

SCOPES = ["read", "play"]


class Redirects:
    """A one-shot loopback listener for the redirect URI: it keeps the URL the browser came back to."""

    def __init__(self) -> None:
        received: list[str] = []
        self.arrived = threading.Event()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
                received.append(f"http://127.0.0.1:{self.server.server_address[1]}{self.path}")
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.end_headers()
                self.wfile.write("Signed in: you can close this tab and go back to the terminal.\n".encode())
                owner.arrived.set()

            def log_message(self, *args: object) -> None:
                return None

        owner = self
        self.received = received
        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.uri = f"http://127.0.0.1:{self.server.server_address[1]}/back"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, timeout: float) -> str:
        if not self.arrived.wait(timeout):
            raise SystemExit("no redirect came back in time")
        self.server.shutdown()
        return self.received[0]


def sign_in(api: SyncClient, client_id: str | None, consent_token: str | None, redirects: Redirects) -> str:
    """The app's client id, once `api` holds the player's tokens (authorization code + PKCE)."""
    if client_id is None:
        with SyncClient(api.base_url) as developer:
            developer.register("Sample app developer")
            client_id = developer.register_app("Stela sample app", [redirects.uri], SCOPES).client_id
    request = authorization_request(api.base_url, client_id, redirects.uri, SCOPES)
    if consent_token is None:
        print("Open this page to sign in:", request.url, flush=True)
        webbrowser.open(request.url)
    else:
        with SyncClient(api.base_url, consent_token) as player:  # what the consent page does for the player
            shown = player.describe_authorization(request.query)
            print(f"consent: {shown.name} asks for {' '.join(shown.scopes)}", flush=True)
            redirect_to = player.decide_authorization(request.query, allow=True).redirect_to
        assert urlsplit(redirect_to).netloc == urlsplit(redirects.uri).netloc
        urllib.request.urlopen(redirect_to, timeout=30).read()  # the browser following the redirect
    code = request.code_from(redirects.wait(600))  # raises on a foreign state or a refusal
    api.exchange_code(client_id, code, request.redirect_uri, request.verifier)
    return client_id


def play(api: SyncClient, kind: str, seed: int) -> str:
    """A game against a bot, followed live and played from the stream's turn frames; its final status."""
    rng = random.Random(seed)
    me = api.me()
    game = api.create_game(kind, seats=2, bots=[{"strategy": "greedy", "strength": 2}])
    print(f"game {game.id}: {me.name} against {game.seats[1].name}", flush=True)
    for frame in api.stream([game.id], legal=True):
        match frame:
            case EventFrame(event=event):
                print(f"  {event.version:4} {event.type}", flush=True)
            case Turn(status="finished" | "aborted" as status):
                return status
            case Turn(version=version, your_turn=True, commands=[*commands]) if commands:
                try:
                    api.command(game.id, rng.choice(commands), version)
                except VersionConflict:
                    pass  # a turn frame already answered: the next one says what now
    raise SystemExit("the stream ended before the game")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://localhost:8000", help="the Stela API")
    parser.add_argument("--client-id", help="a registered app's client id (else one is registered)")
    parser.add_argument("--consent-token", help="approve as this player instead of opening a browser")
    parser.add_argument("--kind", default="coatl")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    redirects = Redirects()
    with SyncClient(args.url) as api:
        client_id = sign_in(api, args.client_id, args.consent_token, redirects)
        print(f"signed in as {api.me().name} (scopes {' '.join(SCOPES)})", flush=True)
        status = play(api, args.kind, args.seed)
        print(f"game {status}", flush=True)
        api.refresh(client_id)  # rotation: the old refresh token is spent
        api.revoke_grant(client_id)  # RFC 7009: this app's grant ends, the player's other sessions stay
        print("logged out", flush=True)


if __name__ == "__main__":
    main()
