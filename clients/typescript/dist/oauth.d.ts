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
export declare const CONSENT_PAGE = "/consent.html";
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
export declare class OAuthDeniedError extends Error {
    readonly error: string;
    readonly description: string;
    constructor(error: string, description?: string);
}
export declare class StateMismatchError extends Error {
    constructor();
}
/** The PKCE S256 challenge of `verifier`: base64url(SHA-256), unpadded. */
export declare function s256(verifier: string): Promise<string>;
/** A new request (fresh state and verifier unless given) to the server's consent page. */
export declare function authorizationRequest(options: {
    baseUrl: string;
    clientId: string;
    redirectUri: string;
    scopes: string[];
    authorizeEndpoint?: string;
    state?: string;
    verifier?: string;
}): Promise<AuthorizationRequest>;
/** The request's query string (what a consent page sends to `describeAuthorization`). */
export declare function queryOf(request: AuthorizationRequest): string;
/** The `code` of the URL the browser came back to, after checking that it answers `request`. */
export declare function codeFromRedirect(request: AuthorizationRequest, redirected: string): string;
