/* A sample OAuth client: discovery (RFC 8414), PKCE S256 (RFC 7636), code exchange and refresh (RFC 6749).
   Configured by its query string: ?api=<Stela origin>&client_id=<its client id>. */
"use strict";

const config = JSON.parse(sessionStorage.getItem("config") || "null") || Object.fromEntries(new URLSearchParams(location.search));
sessionStorage.setItem("config", JSON.stringify({ api: config.api, client_id: config.client_id }));
const redirectUri = location.origin + location.pathname;
const out = document.getElementById("out");
const show = (text) => { out.textContent = text; };

function b64url(bytes) {
  return btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function discover() {
  return (await fetch(`${config.api}/.well-known/oauth-authorization-server`)).json();
}

async function connect() {
  const meta = await discover();
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(48)));
  const challenge = b64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const state = b64url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem("pkce", JSON.stringify({ verifier, state }));
  const params = new URLSearchParams({ response_type: "code", client_id: config.client_id, redirect_uri: redirectUri,
    scope: "read play", state, code_challenge: challenge, code_challenge_method: "S256" });
  location.assign(`${meta.authorization_endpoint}?${params}`);
}

async function token(form) {
  const meta = await discover();
  const resp = await fetch(meta.token_endpoint, { method: "POST", body: new URLSearchParams(form),
    headers: { "Content-Type": "application/x-www-form-urlencoded" } });
  const body = await resp.json();
  if (!resp.ok) throw new Error(`token endpoint: ${body.error}`);
  sessionStorage.setItem("tokens", JSON.stringify(body));
  return body;
}

async function whoami() {
  const tokens = JSON.parse(sessionStorage.getItem("tokens") || "{}");
  const resp = await fetch(`${config.api}/v1/players/me`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
  const body = await resp.json();
  show(resp.ok ? `Connected as ${body.name}` : `Refused: ${resp.status} ${body.code}`);
}

async function callback() {
  const query = new URLSearchParams(location.search);
  if (!query.has("code") && !query.has("error")) return;
  history.replaceState(null, "", location.pathname);
  const saved = JSON.parse(sessionStorage.getItem("pkce") || "{}");
  if (query.get("state") !== saved.state) { show("state mismatch"); return; }
  if (query.has("error")) { show(`Not connected: ${query.get("error")}`); return; }
  const tokens = await token({ grant_type: "authorization_code", code: query.get("code"), redirect_uri: redirectUri,
    client_id: config.client_id, code_verifier: saved.verifier });
  document.body.dataset.scope = tokens.scope;
  await whoami();
}

document.getElementById("connect").onclick = () => connect().catch((e) => show(String(e)));
document.getElementById("whoami").onclick = () => whoami().catch((e) => show(String(e)));
document.getElementById("refresh").onclick = async () => {
  try {
    const tokens = JSON.parse(sessionStorage.getItem("tokens") || "{}");
    await token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: config.client_id });
    await whoami();
  } catch (e) { show(String(e)); }
};
callback().catch((e) => show(String(e)));
