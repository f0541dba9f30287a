/* The client's entry: a hash router over the lobby, a game, a replay, the competitions and one competition's page
(the old tournament and arena routes reach the same pages). */

import { me, explain } from "./api.js";
import { status } from "./dom.js";
import { showLobby } from "./lobby.js";
import { showGame } from "./game.js";
import { showReplay } from "./replay.js";
import { showCompetitions } from "./competitions.js";
import { showCompetition } from "./competition.js";

let stop = () => {};

async function route() {
  stop();
  stop = () => {};
  const root = document.getElementById("app");
  const player = me();
  document.getElementById("me").textContent = player ? `Signed in as ${player.name}` : "";
  const [, page, id] = location.hash.replace(/^#\/?/, "/").split("/");
  status("");
  try {
    if (page === "game" && id) stop = (await showGame(root, id)) || stop;
    else if (page === "replay" && id) stop = (await showReplay(root, id)) || stop;
    else if ((page === "tournament" || page === "arena") && id) stop = (await showCompetition(root, page, id)) || stop;
    else if (["competitions", "tournaments", "arenas"].includes(page)) {
      stop = (await showCompetitions(root, page === "arenas" ? "arena" : "swiss")) || stop;
    }
    else stop = (await showLobby(root)) || stop;
    root.dataset.page = page || "lobby";
    if (document.activeElement === document.body) root.focus();  // screen readers start at the new page
  } catch (err) {
    status(explain(err), true);
  }
}

window.addEventListener("hashchange", route);
route();
