/* The account: sign in by login and password, set or change a password, and see and revoke the tokens and
   apps acting for the player. Only the public API (docs/accounts.md). */

import { get, post, call, explain, signInWithToken, ApiError } from "./api.js";
import { h, status } from "./dom.js";

/** Sign in: a fresh session token, then the SDK's sign-in with it (kept as the player's token in this browser). */
export async function signIn(login, password) {
  const session = await post("/v1/sessions", { login, password });
  await signInWithToken(session.token);
  return session;
}

/** A sign-in form; `done()` after a successful sign-in. */
export function signInForm(done) {
  const name = h("input", { id: "signin-name", name: "username", required: true, maxlength: 80, autocomplete: "username" });
  const password = h("input", { id: "signin-password", name: "password", type: "password", required: true,
    minlength: 8, maxlength: 256, autocomplete: "current-password" });
  return h("form", { class: "card", id: "signin", onsubmit: async (ev) => {
    ev.preventDefault();
    try { await signIn(name.value.trim(), password.value); done(); } catch (err) { status(explain(err), true); }
  } }, h("h2", { text: "Sign in" }), h("label", { for: "signin-name", text: "Login" }), name,
  h("label", { for: "signin-password", text: "Password" }), password, h("button", { type: "submit", text: "Sign in" }));
}

/** The signed-in player's account: set or change a password (a change asks for the current one unless this
    browser signed in just now, and ends the player's other tokens); the apps and tokens acting for them. */
export function accountPanel() {
  const apps = h("ul", { id: "my-apps" });
  const tokens = h("ul", { id: "my-tokens" });
  const password = h("input", { id: "new-password", type: "password", minlength: 8, maxlength: 256,
    autocomplete: "new-password", required: true });
  const current = h("input", { id: "current-password", type: "password", maxlength: 1024,
    autocomplete: "current-password" });
  const refresh = async () => {
    try {
      const [granted, held] = await Promise.all([get("/v1/players/me/apps"), get("/v1/players/me/tokens")]);
      apps.replaceChildren(...granted.map((a) => h("li", { "data-app": a.client_id }, `${a.name} (${a.scopes.join(", ")}) `,
        h("button", { type: "button", class: "revoke", text: "Revoke", onclick: async () => {
          await call("DELETE", `/v1/players/me/apps/${encodeURIComponent(a.client_id)}`);
          status(`${a.name} no longer acts for you`);
          await refresh();
        } }))));
      if (!granted.length) apps.replaceChildren(h("li", { text: "No app acts for you." }));
      tokens.replaceChildren(...held.filter((t) => t.kind !== "oauth").map((t) => h("li", { "data-token": t.id },
        `${t.name} — ${t.kind}, ${t.scopes.join(", ")} `,
        h("button", { type: "button", class: "revoke", text: "Revoke", onclick: async () => {
          await call("DELETE", `/v1/players/me/tokens/${encodeURIComponent(t.id)}`);
          await refresh();
        } }))));
    } catch (err) {
      if (!(err instanceof ApiError && err.code === "insufficient_scope")) status(explain(err), true);
    }
  };
  refresh();
  return h("section", { class: "card", id: "account", "aria-labelledby": "account-h" },
    h("h2", { id: "account-h", text: "Account" }),
    h("form", { id: "password-form", onsubmit: async (ev) => {
      ev.preventDefault();
      try {
        const body = { password: password.value, ...(current.value ? { current_password: current.value } : {}) };
        const out = await post("/v1/players/me/password", body);
        password.value = current.value = "";
        const ended = out.ended_tokens ? `; ${out.ended_tokens} other token(s) ended` : "";
        status(`Password set: sign in as ${out.login}${ended}`);
        await refresh();
      } catch (err) { status(explain(err), true); }
    } }, h("label", { for: "current-password", text: "Current password (to change one)" }), current,
    h("label", { for: "new-password", text: "Password (to sign in elsewhere)" }), password,
    h("button", { type: "submit", text: "Set password" })),
    h("h3", { text: "Apps acting for you" }), apps, h("h3", { text: "Your tokens" }), tokens);
}
