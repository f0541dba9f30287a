"""OAuth 2.0 authorization code with PKCE, for a public client (an app with no secret), the app's side.

    request = authorization_request(client.base_url, client_id, "http://127.0.0.1:8765/back", ["read", "play"])
    # send the browser to request.url; the player signs in and allows; the browser comes back to
    # http://127.0.0.1:8765/back?code=...&state=...
    code = request.code_from(redirected_url)      # checks `state` (raises OAuthDenied on error=access_denied)
    tokens = await client.exchange_code(client_id, code, request.redirect_uri, request.verifier)
    ...
    await client.refresh(client_id)               # a new access token and a new refresh token (rotation)
    await client.revoke_grant(client_id)          # RFC 7009: this grant ends, the player's other devices stay

The verifier is 64 random URL-safe characters (RFC 7636 4.1: 43 to 128), the challenge its S256 digest, the
state 32 random bytes: each request's own, kept by the app until the browser comes back. The server takes
only S256, so there is no `plain` here.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit

CONSENT_PAGE = "/consent.html"  # the authorization endpoint (the server's metadata names it too)


def s256(verifier: str) -> str:
    """The PKCE S256 challenge of `verifier`: base64url(SHA-256), unpadded."""
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


class OAuthDenied(Exception):
    """The player (or the server) refused the authorization request: `error` is the RFC 6749 code."""

    def __init__(self, error: str, description: str = "") -> None:
        self.error, self.description = error, description
        super().__init__(f"{error}: {description}" if description else error)


class StateMismatch(Exception):
    """The redirect's `state` is not the request's: the redirect was not caused by this request (CSRF)."""


@dataclass(frozen=True)
class AuthorizationRequest:
    """One authorization request: the `url` to send the browser to and what the app keeps until it returns."""

    url: str
    client_id: str
    redirect_uri: str
    state: str
    verifier: str
    challenge: str
    scopes: tuple[str, ...]

    @property
    def query(self) -> str:
        """The request's query string (what the consent page sends to `describe_authorization`)."""
        return urlsplit(self.url).query

    def code_from(self, redirected: str) -> str:
        """The `code` of the URL the browser came back to, after checking it answers this request."""
        query = {k: v[0] for k, v in parse_qs(urlsplit(redirected).query).items()}
        if not hmac.compare_digest(query.get("state", ""), self.state):
            raise StateMismatch("the redirect's state is not this request's")
        if "error" in query:
            raise OAuthDenied(query["error"], query.get("error_description", ""))
        if not query.get("code"):
            raise OAuthDenied("invalid_request", "the redirect carries no code")
        return query["code"]


def authorization_request(base_url: str, client_id: str, redirect_uri: str, scopes: Iterable[str], *,
                          authorize_endpoint: str | None = None, state: str | None = None,
                          verifier: str | None = None) -> AuthorizationRequest:
    """A new request (fresh state and verifier unless given) to the server's consent page."""
    verifier = verifier or secrets.token_urlsafe(48)  # 64 characters
    state = state or secrets.token_urlsafe(32)
    chosen = tuple(scopes)
    query = urlencode({"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri,
                       "scope": " ".join(chosen), "state": state, "code_challenge": s256(verifier),
                       "code_challenge_method": "S256"})
    endpoint = authorize_endpoint or base_url.rstrip("/") + CONSENT_PAGE
    return AuthorizationRequest(url=f"{endpoint}?{query}", client_id=client_id, redirect_uri=redirect_uri,
                                state=state, verifier=verifier, challenge=s256(verifier), scopes=chosen)
