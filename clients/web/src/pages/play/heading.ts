// The play page's heading: the game's name (also the window's title), and who sits where.

import type { Game } from "@ludotheque/client";

import type { HeldSeat } from "../../api";
import { h } from "../../dom";
import { t } from "../../i18n";
import { kindName } from "../../kinds";

export class PlayHeading {
  readonly title = h("h1", { attrs: { tabindex: -1 } }, t("play.loading"));
  /** "Cléo (you) · Robin": the players, the seat shown marked. */
  readonly who = h("p", { class: "lead" });

  update(game: Game, seat: HeldSeat | undefined): void {
    this.title.textContent = kindName(game.kind);
    document.title = `${this.title.textContent} · Ludothèque`;
    this.who.textContent = game.seats
      .map((s) => (s.index === seat?.seat ? t("play.you", { name: s.name }) : s.open ? t("play.openSeat") : s.name))
      .join(" · ");
  }

  notFound(): void {
    this.title.textContent = t("play.notFound");
  }
}
