// A minimal third-party client: register, create, join, start, play from /legal, follow with EventSource.
"use strict";

const state = { api: null, gameId: null, seats: [], followers: {}, commands: 0, errors: [], rng: 12345 };

function random(n) {  // a small deterministic generator, so a run can be repeated
  state.rng = (state.rng * 1103515245 + 12345) % 2147483648;
  return state.rng % n;
}

function status(text) { document.getElementById("status").textContent = text; }

async function call(method, path, token, body, attempts = 60) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers["Authorization"] = "Bearer " + token;
  for (let i = 0; ; i++) {
    try {
      const response = await fetch(state.api + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      if (response.status === 503 && i < attempts) { await new Promise(r => setTimeout(r, 250)); continue; }
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
    } catch (error) {  // the server is restarting: try again
      if (i >= attempts) throw error;
      await new Promise(r => setTimeout(r, 250));
    }
  }
}

function render() {
  const rows = Object.entries(state.followers).map(([name, f]) =>
    `<tr><td>${name}</td><td>${f.frames.length}</td><td>${f.lastVersion}</td><td>${f.opens - 1}</td><td>${f.lastType}</td></tr>`);
  document.getElementById("followers").innerHTML = rows.join("");
}

function follow(name, url) {
  const f = { frames: [], lastVersion: 0, opens: 0, lastType: "", errors: 0 };
  state.followers[name] = f;
  const source = new EventSource(url);
  source.onopen = () => { f.opens += 1; render(); };
  source.onerror = () => { f.errors += 1; };
  source.onmessage = (message) => {  // one handler for every frame: frames carry their own type
    const frame = JSON.parse(message.data);
    f.frames.push({ id: message.lastEventId, type: frame.type, frame });
    f.lastType = frame.type;
    f.lastVersion = Math.max(f.lastVersion, Number(message.lastEventId) || 0);
    render();
  };
  f.source = source;
}

async function setup(api, kind, seats, options) {
  state.api = api;
  status("registering");
  for (let i = 0; i < seats; i++) {
    const player = await call("POST", "/v1/players", null, { name: "Browser " + i });
    if (player.status !== 201) throw new Error("register: " + JSON.stringify(player.body));
    state.seats.push({ token: player.body.token, id: player.body.id });
  }
  const game = await call("POST", "/v1/games", state.seats[0].token, { kind, seats, options: options || {} });
  if (game.status !== 201) throw new Error("create: " + JSON.stringify(game.body));
  state.gameId = game.body.id;
  for (let i = 1; i < seats; i++) {
    const joined = await call("POST", `/v1/games/${state.gameId}/join`, state.seats[i].token, {});
    if (joined.status !== 200) throw new Error("join: " + JSON.stringify(joined.body));
  }
  const started = await call("POST", `/v1/games/${state.gameId}/start`, state.seats[0].token);
  if (started.status !== 200) throw new Error("start: " + JSON.stringify(started.body));
  for (let i = 0; i < seats; i++) {
    const ticket = await call("POST", `/v1/games/${state.gameId}/stream-tickets`, state.seats[i].token, {});
    if (ticket.status !== 201) throw new Error("ticket: " + JSON.stringify(ticket.body));
    follow("seat " + i, `${api}/v1/games/${state.gameId}/stream?ticket=${encodeURIComponent(ticket.body.ticket)}&frames=message`);
  }
  follow("spectator", `${api}/v1/games/${state.gameId}/stream?frames=message`);
  status("playing " + state.gameId);
  return { gameId: state.gameId, players: state.seats.map(s => s.id) };
}

async function play(limit) {  // play up to `limit` commands from /legal; returns the game's status
  for (let n = 0; n < limit; n++) {
    const game = await call("GET", `/v1/games/${state.gameId}`, state.seats[0].token);
    if (game.body.status !== "active") { status("game " + game.body.status); return game.body.status; }
    const seat = game.body.to_act[random(game.body.to_act.length)];
    const legal = await call("GET", `/v1/games/${state.gameId}/legal`, state.seats[seat].token);
    if (!legal.body.commands.length) { state.errors.push("no legal command for seat " + seat); return "stuck"; }
    const command = legal.body.commands[random(legal.body.commands.length)];
    const result = await call("POST", `/v1/games/${state.gameId}/commands`, state.seats[seat].token,
                              { command, expected_version: legal.body.version });
    if (result.status === 200) state.commands += 1;
    else if (result.status !== 409) state.errors.push(`${result.status} ${JSON.stringify(result.body)}`);
  }
  return "active";
}

function report() {
  const out = {};
  for (const [name, f] of Object.entries(state.followers))
    out[name] = { frames: f.frames, opens: f.opens, lastVersion: f.lastVersion };
  return { gameId: state.gameId, commands: state.commands, errors: state.errors, followers: out,
           tokens: state.seats.map(s => s.token) };
}

window.stela = { setup, play, report };
