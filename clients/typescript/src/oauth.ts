/**
 * OAuth 2.0 authorization code with PKCE, for a public client (an app with no secret), the app's side:
 *
 * ```ts
 * const request = await authorizationRequest({ baseUrl, clientId, redirectUri, scopes: ["read", "play"] });
 * sessionStorage.setItem("stela-oauth", JSON.stringify(request));   // keep state and verifier
 * location.assign(request.url);                                       // the consent page
 * // ... back at redirectUri?code=...&state=...
 * const code = codeFromRedirect(request, location.href);              // checks the state
 * const { client } = await StelaClient.fromAuthorizationCode(baseUrl, request, code);
 * await client.refresh();                                             // rotation: a new refresh token
 * await client.revokeGrant();                                         // RFC 7009 log-out: this grant only
 * ```
 *
 * The verifier is 64 random URL-safe characters (RFC 7636: 43 to 128), the challenge its S256 digest (Web
 * Crypto), the state 32 random bytes. The server takes only S256, so there is no `plain` here.
 */

export const CONSENT_PAGE = "/consent.html";

export interface AuthorizationRequest {
  /** where to send the browser */
  url: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state: string;
  verifier: string;
  challenge: string;
}

export class OAuthDeniedError extends Error {
  constructor(readonly error: string, readonly description = "") {
    super(description ? `${error}: ${description}` : error);
    this.name = "OAuthDeniedError";
  }
}

export class StateMismatchError extends Error {
  constructor() {
    super("the redirect's state is not this request's");
    this.name = "StateMismatchError";
  }
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function randomText(bytes: number): string {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
}

/** The PKCE S256 challenge of `verifier`: base64url(SHA-256), unpadded. */
export async function s256(verifier: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** A new request (fresh state and verifier unless given) to the server's consent page. */
export async function authorizationRequest(options: {
  baseUrl: string; clientId: string; redirectUri: string; scopes: string[];
  authorizeEndpoint?: string; state?: string; verifier?: string;
}): Promise<AuthorizationRequest> {
  const verifier = options.verifier ?? randomText(48);
  const state = options.state ?? randomText(32);
  const challenge = await s256(verifier);
  const query = new URLSearchParams({
    response_type: "code", client_id: options.clientId, redirect_uri: options.redirectUri,
    scope: options.scopes.join(" "), state, code_challenge: challenge, code_challenge_method: "S256",
  });
  const endpoint = options.authorizeEndpoint ?? options.baseUrl.replace(/\/+$/, "") + CONSENT_PAGE;
  return { url: `${endpoint}?${query}`, clientId: options.clientId, redirectUri: options.redirectUri,
           scopes: [...options.scopes], state, verifier, challenge };
}

/** The request's query string (what a consent page sends to `describeAuthorization`). */
export function queryOf(request: AuthorizationRequest): string {
  return new URL(request.url).search.replace(/^\?/, "");
}

/** The `code` of the URL the browser came back to, after checking that it answers `request`. */
export function codeFromRedirect(request: AuthorizationRequest, redirected: string): string {
  const query = new URL(redirected).searchParams;
  if (query.get("state") !== request.state) throw new StateMismatchError();
  const error = query.get("error");
  if (error) throw new OAuthDeniedError(error, query.get("error_description") ?? "");
  const code = query.get("code");
  if (!code) throw new OAuthDeniedError("invalid_request", "the redirect carries no code");
  return code;
}
