/* The client's entry: a hash router over the lobby, a game, a replay and the tournaments. */

import { me, explain } from "./api.js";
import { status } from "./dom.js";
import { showLobby } from "./lobby.js";
import { showGame } from "./game.js";
import { showReplay } from "./replay.js";
import { showTournaments, showTournament } from "./tournaments.js";
import { showArenas, showArena } from "./arena.js";

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
    else if (page === "tournament" && id) stop = (await showTournament(root, id)) || stop;
    else if (page === "tournaments") stop = (await showTournaments(root)) || stop;
    else if (page === "arena" && id) stop = (await showArena(root, id)) || stop;
    else if (page === "arenas") stop = (await showArenas(root)) || stop;
    else stop = (await showLobby(root)) || stop;
    root.dataset.page = page || "lobby";
    if (document.activeElement === document.body) root.focus();  // screen readers start at the new page
  } catch (err) {
    status(explain(err), true);
  }
}

window.addEventListener("hashchange", route);
route();
