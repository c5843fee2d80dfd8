// The play page's heading: the game's name, and who sits where (the seats played at
// this screen marked).

import type { Game } from "@ludotheque/client";

import type { HeldSeat } from "../../api";
import { h } from "../../dom";
import { t } from "../../i18n";
import { kindName, seatCalled } from "../../kinds";

export class PlayHeading {
  readonly title = h("h1", { attrs: { tabindex: -1 } }, t("play.loading"));
  /** "Cléo (you) · Robin": the players, the seats played here marked. */
  readonly who = h("p", { class: "lead" });

  /** `shown`: the seat whose view is on the board (several played here: each is marked). */
  update(game: Game, held: readonly HeldSeat[], shown: number | undefined): void {
    this.title.textContent = kindName(game.kind);
    const here = new Set(held.map((one) => one.seat));
    this.who.textContent = game.seats
      .map((s) => {
        if (s.open) return t("play.openSeat");
        const name = seatCalled(s.name, s.index);
        if (here.size === 1 && here.has(s.index)) return t("play.you", { name });
        if (here.has(s.index)) return s.index === shown ? t("play.you", { name }) : t("play.here", { name });
        return name;
      })
      .join(" · ");
  }

  notFound(): void {
    this.title.textContent = t("play.notFound");
  }
}
