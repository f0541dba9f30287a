/* The OAuth consent page (the authorization endpoint of /.well-known/oauth-authorization-server): shows the
   app and the scopes it asks for, and sends the browser back to the app with the player's answer. */

import { get, post, me, explain } from "./api.js";
import { h, status } from "./dom.js";
import { signInForm } from "./account.js";

const SCOPES = {
  read: "see your games, their events and live streams",
  play: "create, join and start games and play your moves",
  "tournaments:organise": "create and run tournaments in your name",
};

async function show() {
  const root = document.getElementById("app");
  if (window.top !== window.self) {  // never answer inside another site's frame (clickjacking)
    root.replaceChildren(h("p", { class: "error", id: "refused", text: "Open this page in its own window." }));
    return;
  }
  const request = location.search.replace(/^\?/, "");
  const player = me();
  if (!player) {
    root.replaceChildren(h("p", { text: "Sign in to answer the app's request." }), signInForm(show));
    return;
  }
  document.getElementById("me").textContent = `Signed in as ${player.name}`;
  try {
    const asked = await get(`/v1/oauth/authorize?${request}`);
    const answer = (allow) => async () => {
      try {
        const { redirect_to: target } = await post("/v1/oauth/authorize", { request, allow });
        location.assign(target);
      } catch (err) { status(explain(err), true); }
    };
    root.replaceChildren(h("section", { class: "card", id: "consent" },
      h("h1", { text: `Allow ${asked.name} to act for you?` }),
      h("p", {}, h("strong", { id: "app-name", text: asked.name }), ` (${asked.client_id}) asks to:`),
      h("ul", { id: "scopes" }, ...asked.scopes.map((s) => h("li", { "data-scope": s, text: SCOPES[s] || s }))),
      h("p", { text: `You will be sent back to ${asked.redirect_uri}. You can revoke its access any time in the lobby.` }),
      h("button", { type: "button", id: "allow", onclick: answer(true), text: "Allow" }),
      h("button", { type: "button", id: "deny", onclick: answer(false), text: "Deny" })));
  } catch (err) {
    root.replaceChildren(h("p", { class: "error", id: "refused", text: `This request cannot be answered: ${explain(err)}` }));
  }
}

show();
