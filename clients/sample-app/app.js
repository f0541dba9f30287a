// The sample app's page: everything it asks of Stela goes through the TypeScript SDK's dist/.
// Serve the `clients/` folder (`python -m http.server -d clients 8765`) and open
// http://127.0.0.1:8765/sample-app/ : the redirect URI is this page's own address.
import { authorizationRequest, codeFromRedirect, StelaClient, VersionConflictError } from "../typescript/dist/index.js";

const $ = (id) => document.getElementById(id);
const saved = JSON.parse(sessionStorage.getItem("stela-sample") ?? "{}");
const redirectUri = location.origin + location.pathname;
let client;

function log(line) {
  $("log").textContent += line + "\n";
  $("log").scrollTop = $("log").scrollHeight;
}

function save(more) {
  Object.assign(saved, more);
  sessionStorage.setItem("stela-sample", JSON.stringify(saved));
}

$("api").value = saved.api ?? $("api").value;
$("client-id").value = saved.clientId ?? "";

// an app is registered by a player (its developer): here a new one, made for the purpose
$("register").onclick = async () => {
  const { client: developer } = await StelaClient.register($("api").value, "Sample app developer");
  const app = await developer.registerApp({ name: "Stela sample page", redirect_uris: [redirectUri],
                                            scopes: ["read", "play"] });
  $("client-id").value = app.client_id;
  save({ api: $("api").value, clientId: app.client_id });
  log(`registered app ${app.client_id} (redirect URI ${redirectUri})`);
};

// 1. to the consent page, with a fresh state and an S256 challenge; state and verifier stay in this tab
$("sign-in").onclick = async () => {
  const request = await authorizationRequest({ baseUrl: $("api").value, clientId: $("client-id").value,
                                               redirectUri, scopes: ["read", "play"] });
  save({ api: $("api").value, clientId: request.clientId, request });
  location.assign(request.url);
};

// 2. back from the consent page: check the state, exchange the code with the verifier
async function signedIn() {
  const url = new URL(location.href);
  if (saved.request && (url.searchParams.has("code") || url.searchParams.has("error"))) {
    history.replaceState(null, "", redirectUri);
    const code = codeFromRedirect(saved.request, url.href);
    const { client: made, tokens } = await StelaClient.fromAuthorizationCode(saved.api, saved.request, code);
    save({ request: undefined, accessToken: tokens.access_token, refreshToken: tokens.refresh_token });
    return made;
  }
  if (saved.accessToken) {
    const made = new StelaClient({ baseUrl: saved.api, token: saved.accessToken });
    made.refreshToken = saved.refreshToken;
    return made;
  }
  return undefined;
}

// 3. a game against a bot, followed live on the multiplexed stream; the player picks a legal command
$("play").onclick = async () => {
  const game = await client.createGame({ kind: "coatl", seats: 2, bots: [{ strategy: "greedy", strength: 2 }] });
  log(`game ${game.id} against ${game.seats[1].name}`);
  const stream = client.follow({ games: [game.id], legal: true });
  stream.on("frame", (frame) => {
    if (frame.type === "event") log(`${frame.event.version} ${frame.event.type}`);
    if (frame.type !== "turn") return;
    $("status").textContent = `version ${frame.version}: ${frame.status}` + (frame.your_turn ? ", your turn" : "");
    $("commands").replaceChildren(...(frame.your_turn ? frame.commands ?? [] : []).map((command) => {
      const button = document.createElement("button");
      button.textContent = command.type.split(".")[1] + " " + JSON.stringify({ ...command, type: undefined });
      button.onclick = () => client.command(game.id, command, { expectedVersion: frame.version }).catch((error) => {
        if (!(error instanceof VersionConflictError)) log(String(error));
      });
      return button;
    }));
    if (frame.status === "finished" || frame.status === "aborted") stream.close();  // (open: the bot starts it)
  });
};

// 4. log out: RFC 7009 revocation of this app's grant (the player's other sessions stay)
$("log-out").onclick = async () => {
  await client.revokeGrant(saved.clientId);
  save({ accessToken: undefined, refreshToken: undefined });
  location.reload();
};

client = await signedIn().catch((error) => { log(`sign-in failed: ${error}`); return undefined; });
if (client) {
  const me = await client.me();
  $("who").textContent = `Signed in as ${me.name}.`;
  $("game").hidden = false;
}
