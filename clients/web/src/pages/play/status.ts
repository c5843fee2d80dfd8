// The play page's status line: whose turn it is, waiting for players, someone's move
// being shown, the device to pass, or over (its `data-status` says which: open,
// your-turn, waiting, pass, finished); and, for a spectator, that they are watching.

import { GameStatus, type Game, type GameSnapshot } from "@ludotheque/client";

import { glyphs } from "../../boards/icons";
import { h } from "../../dom";
import { t } from "../../i18n";
import { seatCalled } from "../../kinds";
import type { Showing } from "./sessions";

export class StatusLine {
  readonly element = h("p", { class: "status", attrs: { role: "status", "data-status": "" } });
  /** "You are watching": shown to a spectator. */
  readonly watching = h("p", { class: "watching-badge", attrs: { hidden: true } }, glyphs.eye(), t("play.watching"));

  /** The status of `game` as `showing` sees it in `snapshot`; `moving`: a past move is on
   * the board, `own` the viewer's own (on the way to the others' after it). */
  update(game: Game, snapshot: GameSnapshot, showing: Showing, moving: boolean, own = false): void {
    let text: string;
    let state: string;
    const seat = showing.mode === "seat" ? showing.seat : undefined;
    if (game.status === GameStatus.OPEN && !snapshot.gameOver && snapshot.legalCommands.length === 0) {
      text = t("play.waitingForPlayers");
      state = "open";
    } else if (snapshot.gameOver && !moving) {
      text = t("play.over");
      state = "finished";
    } else if (showing.mode === "curtain") {
      text = t("play.passTo", { name: showing.seat.name });
      state = "pass";
    } else if (!moving && snapshot.legalCommands.length > 0 && seat) {
      text = t("play.yourTurn", { name: seat.name });
      state = "your-turn";
    } else {
      const names = snapshot.toAct.map((index) => (game.seats[index] ? seatCalled(game.seats[index].name, index) : ""));
      text = moving ? t(own ? "play.showingOwn" : "play.showingMoves") : names.length > 0 ? t("play.waitingFor", { names: names.join(", ") }) : t("play.loading");
      state = "waiting";
    }
    if (this.element.textContent !== text) this.element.textContent = text;
    this.element.dataset["status"] = state;
    this.watching.hidden = showing.mode !== "spectator";
  }
}
