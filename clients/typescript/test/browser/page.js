// Drives the SDK from a page: two players, games played from `legal`, streams recorded per follower.
import { StelaClient, VersionConflictError } from "../../dist/index.js";

const state = { api: "", games: [], seats: [], followers: {}, commands: 0, errors: [], rng: 12345 };
const RETRY = { maxAttempts: 30, maxDelayMs: 2000 }; // a game client rides out a server restart

function random(n) {
  state.rng = (state.rng * 1103515245 + 12345) % 2147483648;
  return state.rng % n;
}

function render() {
  document.getElementById("followers").innerHTML = Object.entries(state.followers).map(([name, f]) =>
    `<tr><td>${name}</td><td>${f.frames.length}</td><td>${f.stream.opens}</td><td>${f.stream.state}</td>` +
    `<td>${f.frames.at(-1)?.type ?? ""}</td></tr>`).join("");
}

function record(name, stream) {
  const f = { stream, frames: [], errors: [] };
  state.followers[name] = f;
  stream.on("frame", (frame) => { f.frames.push(frame); render(); });
  stream.on("state", render);
  stream.on("error", (error, willRetry) => f.errors.push({ message: String(error), willRetry }));
}

async function newGame(kind) {
  const [ann, bob] = state.seats;
  const game = await ann.createGame({ kind, seats: 2 });
  await bob.join(game.id);
  await ann.start(game.id);
  state.games.push(game.id);
  return game.id;
}

/** Register two players and start `games` games of `kind`; follow as `mode` says. */
async function setup(api, kind, games, mode) {
  state.api = api;
  for (const name of ["Ann", "Bob"]) {
    const { client } = await StelaClient.register(api, name, { retry: RETRY });
    state.seats.push(client);
  }
  for (let i = 0; i < games; i++) await newGame(kind);
  const spectator = new StelaClient({ baseUrl: api, retry: RETRY });
  if (mode === "multiplex") {
    state.seats.forEach((client, seat) =>
      record(`seat ${seat}`, client.follow({ games: state.games, personal: true, legal: true })));
    record("spectator", spectator.follow({ games: state.games }));
  } else {
    const id = state.games[0];
    state.seats.forEach((client, seat) => record(`seat ${seat}`, client.followGame(id)));
    record("spectator", spectator.followGame(id));
    record("personal 0", state.seats[0].followPersonal());
  }
  document.getElementById("status").textContent = `playing ${state.games.join(", ")}`;
  return { games: state.games };
}

/** Play up to `limit` commands in each game still active; returns the games' statuses. */
async function play(limit) {
  const statuses = {};
  for (const id of state.games) {
    statuses[id] = "active";
    for (let n = 0; n < limit; n++) {
      const game = await state.seats[0].game(id);
      statuses[id] = game.status;
      if (game.status !== "active") break;
      const seat = game.to_act[random(game.to_act.length)];
      const legal = await state.seats[seat].legal(id);
      if (!legal.commands.length) continue;
      const command = legal.commands[random(legal.commands.length)];
      try {
        await state.seats[seat].command(id, command, { expectedVersion: legal.version });
        state.commands += 1;
      } catch (error) {
        if (!(error instanceof VersionConflictError)) state.errors.push(String(error));
      }
    }
  }
  return statuses;
}

function report() {
  const followers = {};
  for (const [name, f] of Object.entries(state.followers)) {
    followers[name] = { frames: f.frames, opens: f.stream.opens, connects: f.stream.connects, state: f.stream.state, errors: f.errors,
                        positions: f.stream.positions ?? { [f.stream.gameId]: f.stream.position } };
  }
  return { games: state.games, commands: state.commands, errors: state.errors, followers };
}

function closeAll() {
  for (const f of Object.values(state.followers)) f.stream.close();
}

window.stela = { setup, play, report, closeAll, ready: true };
