import { GameSession, Ludotheque, storageSeats, type GameSnapshot } from "@ludotheque/client";

const baseUrl = "http://localhost:8080"; // the server; this page's origin in its --cors-origins
const lobby = new Ludotheque({ baseUrl });
const seats = storageSeats(localStorage); // the seats this browser holds: a reload plays on
const app = document.getElementById("app")!;

function element(tag: string, text = "", attributes: Record<string, string> = {}): HTMLElement {
  const made = Object.assign(document.createElement(tag), { textContent: text });
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  return made;
}

function draw(game: GameSnapshot, session: GameSession): void {
  if (game.status === "closed" && game.error) {
    app.replaceChildren(element("p", game.error.message, { role: "alert" }));
    return;
  }
  const invite = `${location.origin}${location.pathname}#join=${game.joinCode}`;
  const players = element("ul", "", { "aria-label": "Players" });
  for (const seat of game.seats) {
    const name = seat.seat.open ? "(a free seat)" : seat.name;
    const label = `${name}${seat.you ? " (you)" : ""} · ${seat.online ? "here" : "away"}${seat.toAct ? " · to play" : ""}`;
    players.append(element("li", label));
  }
  const moves = element("div", "", { "aria-label": "Your moves" });
  for (const command of game.legalCommands) {
    const button = element("button", command.description?.text) as HTMLButtonElement;
    button.disabled = game.pending.length > 0;
    button.onclick = () => void session.play(command).catch(() => {});
    moves.append(button);
  }
  const log = element("ol", "", { "aria-label": "What happened" });
  log.append(...game.events.map((event) => element("li", event.description?.text)));
  const invitation = element("p", "Send this link to a friend: ");
  invitation.append(element("a", invite, { href: invite }));
  app.replaceChildren(
    ...(game.joinCode ? [invitation] : []),
    players,
    ...(game.outcome ? [element("p", game.outcome.summary, { role: "status" })] : []),
    ...(game.lastResult?.error ? [element("p", game.lastResult.error.message, { role: "alert" })] : []),
    moves,
    log,
  );
}

let stop = (): void => {};

function show(): void {
  stop(); // the last listener of the game shown before: its session lets go of its socket
  const [key, value = ""] = location.hash.slice(1).split("=");
  if (key === "game") {
    const session = new GameSession({ baseUrl, gameId: value, seatStore: seats, presence: true });
    stop = session.subscribe(() => draw(session.getSnapshot(), session)); // connects
    draw(session.getSnapshot(), session);
    return;
  }
  const code = key === "join" ? value : "";
  const form = element("form");
  const name = element("input", "", { required: "" }) as HTMLInputElement;
  const label = element("label", "Your name ");
  label.append(name);
  form.append(label, element("button", code ? "Join the game" : "New game of Mooki Island"));
  form.onsubmit = (event) => {
    event.preventDefault();
    start(code, name.value).catch((error: Error) => form.append(element("p", error.message, { role: "alert" })));
  };
  app.replaceChildren(form);
}

async function start(code: string, name: string): Promise<void> {
  if (code) {
    const joined = await lobby.joinGame(code, name); // takes the free seat: its token
    seats.set(joined.game!.gameId, joined.seatToken);
    location.hash = `game=${joined.game!.gameId}`;
  } else {
    const created = await lobby.createGame("mooki", [{ name }, { open: true }]);
    seats.set(created.gameId, created.seatTokens[0]!);
    location.hash = `game=${created.gameId}`;
  }
}

addEventListener("hashchange", show);
show();
