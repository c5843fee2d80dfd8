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
//
// This module puts the page's parts (pages/play/) together and redraws them at each
// change; each part holds one thing and reads alone.

import { Code, ConnectError, GameStatus, type Command, type Game, type GameKind, type GameSnapshot } from "@ludotheque/client";

import { api, errorText, hosts, seats as heldSeats } from "../api";
import { PlayBoard } from "../boards/play-board";
import { announce, fill, h } from "../dom";
import { t } from "../i18n";
import { gameKind } from "../kinds";
import { navigate, paths } from "../router";
import { ConnectionLine } from "./play/connection";
import { EventLog } from "./play/event-log";
import { GameRecord } from "./play/game-record";
import { PlayHeading } from "./play/heading";
import { OutcomePanel } from "./play/outcome";
import { playAgain } from "./play/rematch";
import { SeatSwitch } from "./play/seat-switch";
import { PlaySessions } from "./play/sessions";
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
  private scheduled = false;
  private facts: GameKind | undefined;
  private readonly sessions: PlaySessions;
  private readonly record: GameRecord;
  private readonly heading = new PlayHeading();
  private readonly status = new StatusLine();
  private readonly connection = new ConnectionLine(() => this.sessions.open());
  private readonly error = h("p", { class: "error", attrs: { role: "alert" } });
  private readonly seatSwitch = new SeatSwitch((seat) => {
    this.sessions.choose(seat);
    this.schedule();
  });
  private readonly outcome: OutcomePanel;
  private readonly board = new PlayBoard((command) => this.play(command));
  private readonly table = new TablePanel();
  private readonly notDealt = h("div", { class: "panel not-dealt", attrs: { hidden: true } }, h("p", {}, t("play.notDealt")));
  private readonly log = new EventLog(() => api(this.sessions.held[0]?.token).history(this.gameId));

  constructor(
    main: HTMLElement,
    private readonly gameId: string,
  ) {
    this.sessions = new PlaySessions(gameId, heldSeats.held(gameId), () => this.schedule());
    this.record = new GameRecord(gameId, () => this.sessions.seat?.token, () => this.schedule(), () => this.left);
    const rematch = this.sessions.held.length > 0 ? () => this.rematch() : undefined;
    this.outcome = new OutcomePanel(rematch, (reason) => this.failed(reason));
    fill(main, this.layout());
  }

  /** The game (GetGame) and its kind's facts, then the sessions. */
  async load(): Promise<void> {
    try {
      const game = await this.record.load();
      this.facts = await gameKind(game.kind).catch(() => undefined);
      if (this.left) return;
      this.sessions.open();
      this.heading.title.focus();
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
  }

  private layout(): HTMLElement {
    const { heading, gameId } = this;
    const boardArea = h("section", { class: "board-area", attrs: { "aria-label": t("play.board") } }, this.outcome.element, this.notDealt, this.board.element);
    return h(
      "div",
      { class: "page play" },
      heading.title,
      heading.who,
      h("div", { class: "play-bar" }, this.status.element, this.seatSwitch.element),
      this.connection.element,
      this.error,
      h("div", { class: "play-layout" }, boardArea, h("div", { class: "side" }, this.table.element, this.log.element)),
      h("p", { class: "links" }, h("a", { attrs: { href: paths.lobby() } }, t("play.toLobby")), " · ", h("a", { attrs: { href: paths.debug(gameId) } }, t("play.openDebug"))),
    );
  }

  // Changes that come together (a message of several events) are drawn once. A microtask,
  // not an animation frame: a page in the background still keeps up with its game.
  private schedule(): void {
    if (this.scheduled || this.left) return;
    this.scheduled = true;
    queueMicrotask(() => this.render());
  }

  private render(): void {
    this.scheduled = false;
    if (this.left) return;
    const { sessions, record } = this;
    const first = sessions.primary()?.getSnapshot();
    const game = record.game;
    if (game === undefined || first === undefined) return;
    const next = sessions.takeTurns();
    if (next) announce(t("play.nowPlaying", { name: next.name }));
    const snapshot = sessions.playing()?.getSnapshot() ?? first;
    this.heading.update(game, sessions.seat);
    this.status.update(game, snapshot, sessions.seat);
    if (snapshot.gameOver) this.outcome.show(outcomeText(game, snapshot));
    this.connection.update(first);
    this.seatSwitch.update(sessions.held, sessions.seat);
    this.drawBoard(snapshot);
    this.log.update(first);
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

  private drawBoard(snapshot: GameSnapshot): void {
    const game = this.record.game;
    if (game === undefined) return;
    // Nothing is dealt while the game waits for its players: a word instead of an empty table.
    const waiting = game.status === GameStatus.OPEN && snapshot.legalCommands.length === 0;
    this.board.element.hidden = waiting;
    this.notDealt.hidden = !waiting;
    this.board.update({
      kind: game.kind,
      facts: this.facts,
      view: snapshot.view,
      seats: game.seats,
      viewerSeat: this.sessions.seat?.seat,
      commands: snapshot.legalCommands,
      pending: snapshot.pending.length > 0,
    });
  }

  private play(command: Command): void {
    const session = this.sessions.playing();
    if (session === undefined) return;
    this.error.textContent = "";
    session.play(command, { expectedVersion: session.getSnapshot().version }).catch((reason: unknown) => {
      this.board.forget();
      // A move made stale by the game moving on is not the player's fault: the new turn shows.
      if (this.left || (reason instanceof ConnectError && reason.code === Code.Aborted)) return;
      this.failed(reason);
    });
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
    if (next) navigate(paths.play(next));
  }

  private failed(reason: unknown): void {
    this.error.textContent = errorText(reason);
  }
}

/** How the game ended, in the service's words (the outcome's description, in the page's
 * language), once GetGame says it is over; until then, the last event's. */
function outcomeText(game: Game, snapshot: GameSnapshot): string {
  if (game.status === GameStatus.FINISHED && game.outcome?.description?.text) return game.outcome.description.text;
  return snapshot.events.at(-1)?.description?.text || t("play.over");
}
