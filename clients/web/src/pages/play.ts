// The play page: a game as this browser's seat sees it (or as a spectator, without one),
// live over the WebSocket Play channel (GameSession: the view, the legal moves, the
// events, the move pending until its result, reconnection and resumption by itself).
// The board (boards/) offers the moves as choices on the table; the other players' moves
// are shown one after another (play/playback.ts); what happened is told in the server's
// words (each event's description), and the outcome at the end.
//
// Several seats held at one screen (friends taking turns): one session per seat, and a
// curtain "Pass to Papa" between them (play/sessions.ts, play/curtain.ts). GetGame is
// asked for the seats and the kind, and again when the table changes (a player joins,
// the game is dealt) or, in a game with a turn clock, at each turn (every seat's clock).
// Who is connected comes with the session (presence); once the game is over, the rematch
// is one click (PlayAgain), and offered here when another player dealt it.
//
// This module puts the page's parts (pages/play/) together and redraws them at each
// change; each part holds one thing and reads alone. What the page shows is also read
// aloud (play/narrator.ts), for a child who cannot read yet. On a seat's turn, "Help me"
// asks the server for a hint (GetHint): the board lights its move, the narrator says why.

import { Code, ConnectError, GameStatus, type Command, type Game, type GameKind, type GameSnapshot } from "@ludotheque/client";

import { api, errorText, hosts, seats as heldSeats } from "../api";
import { seatColour } from "../boards/avatars";
import { boardFor } from "../boards/board";
import { PlayBoard } from "../boards/play-board";
import { announce, fill, h } from "../dom";
import { t } from "../i18n";
import { gameKind, kindName } from "../kinds";
import { navigate, paths } from "../router";
import { quiet, silence } from "../speech";
import { grownUp } from "./gate";
import { ConnectionLine } from "./play/connection";
import { PassCurtain } from "./play/curtain";
import { EventLog } from "./play/event-log";
import { GameRecord } from "./play/game-record";
import { Narrator } from "./play/narrator";
import { PlayHeading } from "./play/heading";
import { OutcomePanel, type Ending } from "./play/outcome";
import { Playback, pace, type Frame, type Viewer } from "./play/playback";
import { playAgain } from "./play/rematch";
import { PlaySessions, type Showing } from "./play/sessions";
import { Signals } from "./play/signals";
import { StatusLine } from "./play/status";
import { TablePanel } from "./play/table";

export function playPage(main: HTMLElement, gameId: string): () => void {
  const page = new PlayPage(main, gameId);
  void page.load();
  return () => page.leave();
}

/** The page's parts, the game's facts they share, and when the page is drawn again. */
class PlayPage {
  private left = false;
  /** The render queued (undefined: none); it resolves once the page is drawn. */
  private scheduled: Promise<void> | undefined;
  private facts: GameKind | undefined;
  private ended = "";
  private readonly sessions: PlaySessions;
  private readonly record: GameRecord;
  private readonly heading = new PlayHeading();
  private readonly status = new StatusLine();
  private readonly signals: Signals;
  private readonly connection = new ConnectionLine(() => this.sessions.open());
  private readonly error = h("p", { class: "error", attrs: { role: "alert" } });
  private readonly outcome: OutcomePanel;
  private readonly narrator = new Narrator();
  private readonly board = new PlayBoard(
    (command) => this.play(command),
    () => {
      silence();
      this.playback.skip();
    },
    () => this.signals.sound("round"),
    (prompt) => this.narrator.prompt(prompt),
    () => void this.help(),
  );
  private readonly playback = new Playback(
    () => this.schedule(),
    (event) => {
      const moves = this.facts ? boardFor(this.facts.kind).moves?.(event, { kind: this.facts.kind, facts: this.facts, view: undefined, seats: [] }) : undefined;
      return { beat: (moves?.motions.length ?? 0) > 0 || event.gameOver, celebrate: moves?.celebrate === "round" };
    },
    quiet,
  );
  private readonly curtain = new PassCurtain((seat) => {
    this.sessions.unveil(seat);
    this.schedule();
  });
  private readonly table = new TablePanel();
  private readonly notDealt = h("div", { class: "panel not-dealt", attrs: { hidden: true } }, h("p", {}, t("play.notDealt")));
  private readonly side: HTMLElement;
  private readonly stage = h("div", { class: "play-stage" });
  private readonly log: EventLog;

  constructor(
    main: HTMLElement,
    private readonly gameId: string,
  ) {
    this.sessions = new PlaySessions(gameId, heldSeats.held(gameId), () => this.schedule());
    this.record = new GameRecord(gameId, () => this.sessions.readToken ?? this.sessions.held[0]?.token, () => this.schedule(), () => this.left);
    this.log = new EventLog(() => api(this.sessions.readToken).history(this.gameId));
    this.signals = new Signals(gameId);
    const rematch = this.sessions.held.length > 0 ? () => this.rematch() : undefined;
    this.outcome = new OutcomePanel(rematch, (reason) => this.failed(reason));
    this.side = h("div", { class: "side" }, this.table.element, this.log.element);
    fill(main, this.layout());
  }

  /** The game (GetGame) and its kind's facts, then the sessions. */
  async load(): Promise<void> {
    try {
      const game = await this.record.load();
      this.facts = await gameKind(game.kind).catch(() => undefined);
      if (this.left) return;
      this.sessions.secrets = this.facts?.seatSecrets ?? true;
      this.sessions.open();
      this.heading.title.focus({ preventScroll: true });
    } catch (reason) {
      if (!this.left) {
        this.heading.notFound();
        this.failed(reason);
      }
    }
  }

  leave(): void {
    this.left = true;
    this.table.close();
    this.sessions.close();
    this.playback.close();
    this.signals.close();
    silence();
  }

  private layout(): HTMLElement {
    const { heading, gameId } = this;
    const boardArea = h(
      "section",
      { class: "board-area", attrs: { "aria-labelledby": "game-area-title" } },
      h("h2", { class: "visually-hidden", attrs: { id: "game-area-title" } }, t("play.gameArea")),
      this.outcome.element,
      this.notDealt,
      this.curtain.element,
      this.board.element,
    );
    const top = h("div", { class: "play-top" }, heading.title, heading.who, h("div", { class: "play-bar" }, this.status.element, this.status.watching, this.signals.element));
    return h(
      "div",
      { class: "page play" },
      fillIn(this.stage, top, this.connection.element, this.error, boardArea),
      this.side,
      // The debug panel only for a grown-up who passed the gate in this tab (pages/gate.ts).
      h("p", { class: "links" }, h("a", { class: "button secondary", attrs: { href: paths.lobby() } }, t("play.toLobby")), grownUp() ? h("a", { class: "button secondary", attrs: { href: paths.debug(gameId) } }, t("play.openDebug")) : null),
    );
  }

  // Changes that come together (a message of several events) are drawn once. A microtask,
  // not an animation frame: a page in the background still keeps up with its game.
  private schedule(): Promise<void> {
    if (this.left) return Promise.resolve();
    this.scheduled ??= new Promise((resolve) =>
      queueMicrotask(() => {
        this.scheduled = undefined;
        try {
          if (!this.left) this.render();
        } finally {
          resolve();
        }
      }),
    );
    return this.scheduled;
  }

  private render(): void {
    const { sessions, record } = this;
    const game = record.game;
    const first = sessions.primary()?.getSnapshot();
    let showing = sessions.showing(this.playback.busy);
    if (game === undefined || first === undefined || showing === undefined) return;
    const live = showing.session.getSnapshot();
    const frame = this.playback.follow(live, this.viewerOf(showing));
    showing = sessions.showing(this.playback.busy) ?? showing; // the table stays while moves are shown
    this.stage.dataset["kind"] = game.kind;
    this.heading.update(game, sessions.held, showing.mode === "seat" ? showing.seat.seat : undefined);
    const viewer = showing.mode === "seat" ? showing.seat.seat : undefined;
    const own = frame.beat.length > 0 && viewer !== undefined && frame.beat.every((event) => event.seat === viewer);
    this.status.update(game, live, showing, !frame.live, own);
    this.connection.update(first);
    const myTurn = frame.live && showing.mode === "seat" && live.legalCommands.length > 0 && !live.gameOver;
    // Read aloud: the moves up to the one on the board, then the turn, the curtain, the end.
    if (frame.view !== undefined) this.narrator.events(first.events, frame.version);
    this.narrator.setTurn(myTurn && showing.mode === "seat" ? { key: String(showing.seat.seat), name: showing.seat.name } : undefined);
    if (showing.mode === "curtain") this.narrator.curtain(String(showing.seat.seat), live.version, showing.seat.name);
    this.drawBoard(game, showing, live, frame);
    this.showEnd(game, live, first, frame);
    this.log.update(first);
    this.signals.update(kindName(game.kind), myTurn && showing.mode === "seat" ? showing.seat.name : undefined, showing.mode === "seat" ? String(showing.seat.seat) : "");
    const host = hosts.token(this.gameId);
    this.table.update({
      game,
      receivedAt: record.receivedAt,
      online: first.onlineSeats,
      mine: sessions.held.map((one) => one.seat),
      start: host && game.status === GameStatus.OPEN ? () => void this.startNow(host) : undefined,
    });
    record.follow(first);
  }

  private viewerOf(showing: Showing): Viewer {
    const token = showing.mode === "seat" ? showing.seat.token : undefined;
    return {
      seat: showing.mode === "seat" ? showing.seat.seat : undefined,
      viewAt: async (version) => (await api(token).replay(this.gameId, version)).view,
    };
  }

  private drawBoard(game: Game, showing: Showing, live: GameSnapshot, frame: Frame): void {
    // Nothing is dealt while the game waits for its players: a word, and who sits at the table.
    const waiting = game.status === GameStatus.OPEN && live.legalCommands.length === 0 && !live.gameOver;
    this.notDealt.hidden = !waiting;
    (waiting ? this.notDealt : this.side).prepend(this.table.element);
    this.curtain.update(showing.mode === "curtain" ? showing.seat : undefined, showing.mode === "curtain" ? seatColour(this.facts, showing.seat.seat) : "");
    this.board.element.hidden = waiting || showing.mode === "curtain";
    if (showing.mode === "curtain") {
      this.board.clear();
      return;
    }
    const seat = showing.mode === "seat" ? showing.seat.seat : undefined;
    this.board.update({
      kind: game.kind,
      facts: this.facts,
      view: frame.view,
      seats: game.seats,
      viewerSeat: seat,
      commands: frame.live && seat !== undefined ? live.legalCommands : [],
      pending: live.pending.length > 0,
      version: frame.version,
      events: frame.events,
      beat: frame.live ? undefined : frame.beat,
      moving: pace() > 0,
    });
  }

  /** The outcome once the game is over and its last moves were shown, with its sound. */
  private showEnd(game: Game, live: GameSnapshot, first: GameSnapshot, frame: Frame): void {
    if (!live.gameOver || !frame.live) {
      this.outcome.hide();
      return;
    }
    const winners = game.outcome?.winners ?? live.outcome?.winners;
    const held = this.sessions.held.map((one) => one.seat);
    let ending: Ending = "over";
    if (held.length > 0 && winners !== undefined && game.status === GameStatus.FINISHED) ending = held.some((seat) => winners.includes(seat)) ? "won" : "lost";
    const offered = this.sessions.held.some((one) => this.sessions.snapshotOf(one.seat)?.rematch?.seatToken) || Boolean(first.rematch);
    this.outcome.show(outcomeText(game, live), ending, offered, first.rematch?.gameId ?? game.rematchGameId ?? "");
    if (game.status === GameStatus.FINISHED) this.narrator.outcome(outcomeText(game, live));
    const said = `${ending}:${game.status}`;
    if (said !== this.ended && game.status === GameStatus.FINISHED) {
      this.ended = said;
      if (ending !== "over") this.signals.sound(ending);
    }
  }

  private play(command: Command): void {
    const showing = this.sessions.showing(false);
    if (showing?.mode !== "seat") return;
    const session = showing.session;
    this.error.textContent = "";
    session.play(command, { expectedVersion: session.getSnapshot().version }).catch((reason: unknown) => {
      this.board.forget();
      // A move made stale by the game moving on is not the player's fault: the new turn shows.
      if (this.left || (reason instanceof ConnectError && reason.code === Code.Aborted)) return;
      this.failed(reason);
    });
  }

  /** "Help me": the hint for the seat whose turn it is here (GetHint), lit on the board
   * and its reason said aloud, in the page's language. */
  private async help(): Promise<void> {
    const showing = this.sessions.showing(false);
    if (showing?.mode !== "seat") return;
    this.error.textContent = "";
    try {
      const hint = await api(showing.seat.token).getHint(this.gameId);
      if (this.left || hint.command === undefined) return;
      const reason = hint.reason?.text ?? "";
      this.board.hint({ version: hint.version, seat: showing.seat.seat, command: hint.command, reason });
      this.narrator.hint(reason);
    } catch (reason) {
      if (!this.left) this.failed(reason);
    }
  }

  /** The host deals the game now, with robots in the seats nobody took (StartGame). */
  private async startNow(host: string): Promise<void> {
    try {
      await api(host).startGame(this.gameId);
      void this.record.refresh();
    } catch (reason) {
      this.failed(reason);
    }
  }

  private async rematch(): Promise<void> {
    const next = await playAgain(this.gameId, this.sessions.held, (one) => this.sessions.snapshotOf(one.seat)?.rematch);
    if (next) {
      announce(t("lobby.created"));
      navigate(paths.play(next));
    }
  }

  private failed(reason: unknown): void {
    this.error.textContent = errorText(reason);
  }
}

function fillIn(element: HTMLElement, ...children: HTMLElement[]): HTMLElement {
  fill(element, ...children);
  return element;
}

/** How the game ended, in the service's words (the outcome's description, in the page's
 * language), once GetGame says it is over; until then, the last event's. */
function outcomeText(game: Game, snapshot: GameSnapshot): string {
  if (game.status === GameStatus.FINISHED && game.outcome?.description?.text) return game.outcome.description.text;
  return snapshot.events.at(-1)?.description?.text || t("play.over");
}
