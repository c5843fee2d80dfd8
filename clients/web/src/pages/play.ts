// The play page: a game as this browser's seat sees it (or as a spectator, without one),
// live over the WebSocket Play channel (GameSession: the view, the legal moves, the
// events, the move pending until its result, reconnection and resumption by itself).
// The board (boards/) offers the moves as choices on the table; what happened is told
// in the server's words (each event's description), and the outcome at the end.
//
// Several seats held at one screen (friends taking turns): one session per seat, and
// the seat whose turn it is plays. GetGame is asked for the seats and the kind, and again
// when the table changes (a player joins, the game is dealt) or, in a game with a turn
// clock, at each turn (every seat's clock). Who is connected comes with the session
// (presence); once the game is over, the rematch is one click (PlayAgain).

import { Code, ConnectError, GameStatus, type Command, type Event, type Game, type GameKind, type GameSession, type GameSnapshot } from "@ludotheque/client";

import { api, errorText, hosts, seats as heldSeats, playSession, type HeldSeat } from "../api";
import { PlayBoard } from "../boards/play-board";
import { picture, s, starPoints } from "../boards/svg";
import { announce, fill, h } from "../dom";
import { t } from "../i18n";
import { gameKind, kindName } from "../kinds";
import { navigate, paths } from "../router";
import { describeEvent } from "../views/message";
import { playAgain } from "./rematch";
import { TablePanel } from "./table";

export function playPage(main: HTMLElement, gameId: string): () => void {
  const held = heldSeats.held(gameId);
  let seat: HeldSeat | undefined = held[0];
  let game: Game | undefined;
  let gameAt = 0;
  let facts: GameKind | undefined;
  let left = false;
  const sessions = new Map<number | "spectator", GameSession>();
  let lastLogged = 0n;

  const title = h("h1", { attrs: { tabindex: -1 } }, t("play.loading"));
  const who = h("p", { class: "lead" });
  const status = h("p", { class: "status", attrs: { role: "status", "data-status": "" } });
  const connection = h("p", { class: "connection", attrs: { role: "status", "data-connection": "connecting" } });
  const error = h("p", { class: "error", attrs: { role: "alert" } });
  const seatSwitch = h("div", { class: "seat-switch" });
  const outcome = h("div", { class: "outcome", attrs: { hidden: true } });
  const board = new PlayBoard(play);
  const table = new TablePanel();
  const notDealt = h("div", { class: "panel not-dealt", attrs: { hidden: true } }, h("p", {}, t("play.notDealt")));
  const log = h("ol", { class: "event-log" });
  const logScroller = h("div", { class: "log-scroll", attrs: { role: "log", "aria-live": "polite", "aria-labelledby": "log-title", "aria-busy": "true", tabindex: 0 } }, log);
  fill(
    main,
    h(
      "div",
      { class: "page play" },
      title,
      who,
      h("div", { class: "play-bar" }, status, seatSwitch),
      connection,
      error,
      h(
        "div",
        { class: "play-layout" },
        h("section", { class: "board-area", attrs: { "aria-label": t("play.board") } }, outcome, notDealt, board.element),
        h(
          "div",
          { class: "side" },
          table.element,
          h("section", { class: "panel log-panel", attrs: { "aria-labelledby": "log-title" } }, h("h2", { attrs: { id: "log-title" } }, t("play.log")), logScroller),
        ),
      ),
      h("p", { class: "links" }, h("a", { attrs: { href: paths.lobby() } }, t("play.toLobby")), " · ", h("a", { attrs: { href: paths.debug(gameId) } }, t("play.openDebug"))),
    ),
  );

  // --- sessions ---------------------------------------------------------------------

  function open(): void {
    for (const session of sessions.values()) session.close();
    sessions.clear();
    if (held.length === 0) sessions.set("spectator", playSession(gameId));
    for (const one of held) sessions.set(one.seat, playSession(gameId, one.token));
    for (const session of sessions.values()) session.subscribe(schedule);
    schedule();
  }

  /** The session whose events make the log: the first seat's, or the spectator's. */
  const primary = (): GameSession | undefined => sessions.get(held[0]?.seat ?? "spectator");
  const playing = (): GameSession | undefined => (seat ? sessions.get(seat.seat) : primary());

  // Changes that come together (a message of several events) are drawn once. A microtask,
  // not an animation frame: a page in the background still keeps up with its game.
  let scheduled = false;
  function schedule(): void {
    if (scheduled || left) return;
    scheduled = true;
    queueMicrotask(render);
  }

  // --- drawing ----------------------------------------------------------------------

  function render(): void {
    scheduled = false;
    if (left) return;
    const first = primary()?.getSnapshot();
    if (game === undefined || first === undefined) return;
    takeTurns();
    const snapshot = playing()?.getSnapshot() ?? first;
    title.textContent = kindName(game.kind);
    document.title = `${title.textContent} · Ludothèque`;
    who.textContent = game.seats
      .map((s) => (s.index === seat?.seat ? t("play.you", { name: s.name }) : s.open ? t("play.openSeat") : s.name))
      .join(" · ");
    renderStatus(snapshot);
    renderConnection(first);
    renderSeatSwitch();
    // Nothing is dealt while the game waits for its players: a word instead of an empty table.
    const waiting = game.status === GameStatus.OPEN && snapshot.legalCommands.length === 0;
    board.element.hidden = waiting;
    notDealt.hidden = !waiting;
    board.update({
      kind: game.kind,
      facts,
      view: snapshot.view,
      seats: game.seats,
      viewerSeat: seat?.seat,
      commands: snapshot.legalCommands,
      pending: snapshot.pending.length > 0,
    });
    for (const event of first.events) addEvent(event);
    if (first.view !== undefined) logScroller.setAttribute("aria-busy", "false");
    const host = hosts.token(gameId);
    table.update({
      game,
      receivedAt: gameAt,
      online: first.onlineSeats,
      mine: held.map((one) => one.seat),
      start: host && game.status === GameStatus.OPEN ? () => void startNow(host) : undefined,
    });
    if (first.version !== refreshedAt && (game.status === GameStatus.OPEN || game.clock !== undefined || first.gameOver || hasTableEvent(first, refreshedAt))) {
      refreshedAt = first.version;
      void refreshGame();
    }
  }

  // --- the table ----------------------------------------------------------------------

  let refreshedAt = 0n;
  let refreshing = false;
  let again = false;
  /** GetGame again (one at a time; news meanwhile asks for one more after). */
  async function refreshGame(): Promise<void> {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      do {
        again = false;
        const fresh = await api(seat?.token).getGame(gameId);
        if (left) return;
        game = fresh;
        gameAt = Date.now();
        schedule();
      } while (again);
    } catch {
      // The session says when the server cannot be reached; the table keeps what it had.
    } finally {
      refreshing = false;
    }
  }

  async function startNow(host: string): Promise<void> {
    try {
      await api(host).startGame(gameId);
      void refreshGame();
    } catch (reason) {
      error.textContent = errorText(reason);
    }
  }

  async function rematch(button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    try {
      const next = await playAgain(gameId, held, (one) => sessions.get(one.seat)?.getSnapshot().rematch);
      if (next) navigate(paths.play(next));
    } catch (reason) {
      error.textContent = errorText(reason);
      button.disabled = false;
    }
  }

  /** Friends at one screen: when the seat shown has nothing to do, the one that has plays. */
  function takeTurns(): void {
    if (held.length < 2 || (seat && (sessions.get(seat.seat)?.getSnapshot().legalCommands.length ?? 0) > 0)) return;
    const next = held.find((one) => (sessions.get(one.seat)?.getSnapshot().legalCommands.length ?? 0) > 0);
    if (next && next.seat !== seat?.seat) {
      seat = next;
      announce(t("play.nowPlaying", { name: next.name }));
    }
  }

  function renderStatus(snapshot: GameSnapshot): void {
    if (game === undefined) return;
    let text: string;
    let state: string;
    if (game.status === GameStatus.OPEN && !snapshot.gameOver && snapshot.legalCommands.length === 0) {
      text = t("play.waitingForPlayers");
      state = "open";
    } else if (snapshot.gameOver) {
      text = t("play.over");
      state = "finished";
      showOutcome(snapshot.events.at(-1)?.description?.text || text);
    } else if (snapshot.legalCommands.length > 0 && seat) {
      text = t("play.yourTurn", { name: seat.name });
      state = "your-turn";
    } else {
      const active = activeSeat(snapshot);
      const name = active === undefined ? "" : (game.seats[active]?.name ?? "");
      text = name ? t("play.waitingFor", { names: name }) : t("play.loading");
      state = "waiting";
    }
    if (status.textContent !== text) status.textContent = text;
    status.dataset["status"] = state;
  }

  function showOutcome(text: string): void {
    if (!outcome.hidden) return;
    fill(
      outcome,
      h("p", { class: "outcome-text" }, h("span", { class: "outcome-mark" }, picture("0 0 40 40", s("polygon", { points: starPoints(20, 21, 18, 8), fill: "#f4b942", stroke: "#8a6d00", "stroke-width": 2 }))), " ", text),
      h(
        "p",
        { class: "outcome-actions" },
        held.length > 0 ? h("button", { class: "primary rematch", attrs: { type: "button" }, on: { click: (event) => void rematch(event.currentTarget as HTMLButtonElement) } }, t("play.again")) : null,
        " ",
        h("a", { class: held.length > 0 ? "button secondary" : "button", attrs: { href: paths.lobby() } }, t("play.newGame")),
      ),
    );
    outcome.hidden = false;
  }

  function renderConnection(snapshot: GameSnapshot): void {
    const state = snapshot.status === "closed" && snapshot.error === undefined ? "done" : snapshot.status;
    if (connection.dataset["connection"] === state) return;
    connection.dataset["connection"] = state;
    if (state === "reconnecting") fill(connection, t("play.reconnecting"));
    else if (state === "closed") {
      fill(
        connection,
        t("play.connectionLost", { reason: snapshot.error ? errorText(snapshot.error) : "" }),
        " ",
        h("button", { class: "secondary", attrs: { type: "button" }, on: { click: open } }, t("play.tryAgain")),
      );
    } else fill(connection);
  }

  function renderSeatSwitch(): void {
    if (held.length < 2) return;
    const select = h(
      "select",
      { attrs: { id: "seat-select" }, on: { change: () => ((seat = held.find((s) => s.seat === Number(select.value)) ?? seat), schedule()) } },
      ...held.map((s) => h("option", { attrs: { value: s.seat, selected: s.seat === seat?.seat } }, s.name)),
    );
    if (seatSwitch.querySelector("select")?.value !== String(seat?.seat)) {
      fill(seatSwitch, h("label", { attrs: { for: "seat-select" } }, t("play.playingAs")), select);
    }
  }

  function addEvent(event: Event): void {
    if (event.version <= lastLogged) return;
    lastLogged = event.version;
    log.append(
      h(
        "li",
        { attrs: { "data-version": String(event.version) } },
        h("span", { class: "version", attrs: { "aria-hidden": "true" } }, String(event.version)),
        " ",
        event.description?.text || describeEvent(event),
      ),
    );
    logScroller.scrollTop = logScroller.scrollHeight;
  }

  // --- playing ----------------------------------------------------------------------

  function play(command: Command): void {
    const session = playing();
    if (session === undefined) return;
    error.textContent = "";
    session.play(command, { expectedVersion: session.getSnapshot().version }).catch((reason: unknown) => {
      board.forget();
      // A move made stale by the game moving on is not the player's fault: the new turn shows.
      if (left || (reason instanceof ConnectError && reason.code === Code.Aborted)) return;
      error.textContent = errorText(reason);
    });
  }

  void (async () => {
    try {
      game = await api(seat?.token).getGame(gameId);
      gameAt = Date.now();
      facts = await gameKind(game.kind).catch(() => undefined);
      if (left) return;
      open();
      title.focus();
    } catch (reason) {
      if (!left) {
        title.textContent = t("play.notFound");
        error.textContent = errorText(reason);
      }
    }
  })();

  return () => {
    left = true;
    table.close();
    for (const session of sessions.values()) session.close();
  };
}

/** Whether a table event (a join, a leave, a take-over) came after `version`. */
function hasTableEvent(snapshot: GameSnapshot, version: bigint): boolean {
  for (let index = snapshot.events.length - 1; index >= 0 && snapshot.events[index].version > version; index--) {
    if (snapshot.events[index].table) return true;
  }
  return false;
}

/** The seat the game waits for, from the view (every game's view names its active seat). */
function activeSeat(snapshot: GameSnapshot): number | undefined {
  const inner = snapshot.view?.game.value as { activeSeat?: number } | undefined;
  return inner?.activeSeat;
}
