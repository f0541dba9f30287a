"""The sample third-party app (clients/sample-app/play.py) runs against a live server: it signs a player in
with PKCE through its own loopback redirect, plays a game against a bot to its end while following it live,
and logs out; the player's own token keeps working after the app's log-out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from stela_client import SyncClient

SCRIPT = Path(__file__).resolve().parents[2] / "sample-app" / "play.py"


def test_the_sample_app_signs_in_with_pkce_plays_a_bot_and_follows_the_game_live(server):
    with SyncClient(server.url) as ann:
        player = ann.register("Ann")
        done = subprocess.run([sys.executable, str(SCRIPT), "--url", server.url, "--consent-token", player.token],
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-5000:]
        lines = done.stdout.splitlines()
        assert lines[0] == "consent: Stela sample app asks for read play"
        assert lines[1] == "signed in as Ann (scopes read play)"
        assert lines[2].startswith("game ") and lines[2].endswith(": Ann against " + lines[2].split(" against ")[1])
        versions = [int(line.split()[0]) for line in lines[3:-2]]
        assert versions == sorted(set(versions)) and len(versions) > 10  # live events, each once, in order
        assert lines[-2] in ("game finished", "game aborted") and lines[-1] == "logged out"
        game_id = lines[2].split()[1].rstrip(":")
        assert ann.game(game_id).status in ("finished", "aborted")
        assert ann.game(game_id).seats[0].player_id == player.id  # the app played as Ann
        assert ann.me().id == player.id  # the app's log-out ended its grant only
