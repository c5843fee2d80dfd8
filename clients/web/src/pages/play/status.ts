// The play page's status line: whose turn it is, waiting for players, or over (its
// `data-status` says which: open, your-turn, waiting, finished).

import { GameStatus, type Game, type GameSnapshot } from "@ludotheque/client";

import type { HeldSeat } from "../../api";
import { h } from "../../dom";
import { t } from "../../i18n";

export class StatusLine {
  readonly element = h("p", { class: "status", attrs: { role: "status", "data-status": "" } });

  /** The status of `game` as the seat shown (or a spectator) sees it in `snapshot`. */
  update(game: Game, snapshot: GameSnapshot, seat: HeldSeat | undefined): void {
    let text: string;
    let state: string;
    if (game.status === GameStatus.OPEN && !snapshot.gameOver && snapshot.legalCommands.length === 0) {
      text = t("play.waitingForPlayers");
      state = "open";
    } else if (snapshot.gameOver) {
      text = t("play.over");
      state = "finished";
    } else if (snapshot.legalCommands.length > 0 && seat) {
      text = t("play.yourTurn", { name: seat.name });
      state = "your-turn";
    } else {
      const active = activeSeat(snapshot);
      const name = active === undefined ? "" : (game.seats[active]?.name ?? "");
      text = name ? t("play.waitingFor", { names: name }) : t("play.loading");
      state = "waiting";
    }
    if (this.element.textContent !== text) this.element.textContent = text;
    this.element.dataset["status"] = state;
  }
}

/** The seat the game waits for, from the view (every game's view names its active seat). */
function activeSeat(snapshot: GameSnapshot): number | undefined {
  const inner = snapshot.view?.game.value as { activeSeat?: number } | undefined;
  return inner?.activeSeat;
}
