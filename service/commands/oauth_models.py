"""What Authlib's OAuth 2.0 server reads: apps, authorization codes and tokens as its mixins, and PKCE S256 only.

Every app is a public client (no secret: a browser or native app cannot keep one): it authenticates at
the token endpoint with its `client_id` alone (`none`), and PKCE (RFC 7636) is what binds a code to
the app that asked for it. Redirect URIs match exactly, character for character.
"""

from __future__ import annotations

from datetime import UTC, datetime

from authlib.oauth2.rfc6749 import AuthorizationCodeMixin, ClientMixin, InvalidRequestError, TokenMixin
from authlib.oauth2.rfc7636 import CodeChallenge

from service.store.accounts import AuthCode, Credential, OAuthClient

GRANT_TYPES = ("authorization_code", "refresh_token")


class App(ClientMixin):
    """A registered app (a public client)."""

    def __init__(self, client: OAuthClient) -> None:
        self.client = client

    def get_client_id(self) -> str:
        return self.client.client_id

    def get_default_redirect_uri(self) -> str | None:
        uris = self.client.redirect_uris
        return uris[0] if len(uris) == 1 else None  # with several, the request must name one

    def get_allowed_scope(self, scope: str | None) -> str:
        """The requested scopes the app registered (all it registered when none are asked for)."""
        registered = self.client.scopes
        if not scope:
            return " ".join(registered)
        return " ".join(s for s in registered if s in scope.split())

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return redirect_uri in self.client.redirect_uris

    def check_client_secret(self, client_secret: str) -> bool:
        return False  # public clients have none

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method == "none"

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type in GRANT_TYPES


class Code(AuthorizationCodeMixin):
    """A stored authorization code, with its PKCE challenge."""

    def __init__(self, code: AuthCode) -> None:
        self.code = code
        self.code_challenge = code.challenge
        self.code_challenge_method = code.method

    def get_redirect_uri(self) -> str:
        return self.code.redirect_uri

    def get_scope(self) -> str:
        return self.code.scope


class Token(TokenMixin):
    """An app's access token and its refresh token (a `Credential` of kind `oauth`)."""

    def __init__(self, credential: Credential) -> None:
        self.credential = credential

    def check_client(self, client: ClientMixin) -> bool:
        return self.credential.client_id == client.get_client_id()

    def get_scope(self) -> str:
        return " ".join(self.credential.scopes)

    def get_expires_in(self) -> int:
        expires = self.credential.expires_at
        return max(0, int((expires - datetime.now(UTC)).total_seconds())) if expires else 0

    def is_expired(self) -> bool:
        ends = self.credential.refresh_expires_at
        return ends is not None and ends <= datetime.now(UTC)

    def is_revoked(self) -> bool:
        return self.credential.revoked_at is not None


class S256Only(CodeChallenge):
    """PKCE required on every authorization request, with the S256 method only: `plain` (a downgrade that
    sends the verifier itself) and a missing challenge are refused before any code is issued."""

    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]
    DEFAULT_CODE_CHALLENGE_METHOD = "S256"

    def validate_code_challenge(self, grant, redirect_uri):  # type: ignore[no-untyped-def]
        data = grant.request.payload.data
        if not data.get("code_challenge"):
            raise InvalidRequestError("PKCE is required: send 'code_challenge' with 'code_challenge_method=S256'")
        if data.get("code_challenge_method") != "S256":
            raise InvalidRequestError("'code_challenge_method' must be S256")
        super().validate_code_challenge(grant, redirect_uri)
