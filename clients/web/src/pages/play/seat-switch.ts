// The play page's seat switch: with several seats held at one screen, which one is shown
// ("Playing as"); the turn passing from seat to seat moves it too.

import type { HeldSeat } from "../../api";
import { fill, h } from "../../dom";
import { t } from "../../i18n";

export class SeatSwitch {
  readonly element = h("div", { class: "seat-switch" });

  /** `choose` is told the seat picked. */
  constructor(private readonly choose: (seat: number) => void) {}

  update(held: readonly HeldSeat[], seat: HeldSeat | undefined): void {
    if (held.length < 2) return;
    const select = h(
      "select",
      { attrs: { id: "seat-select" }, on: { change: () => this.choose(Number(select.value)) } },
      ...held.map((s) => h("option", { attrs: { value: s.seat, selected: s.seat === seat?.seat } }, s.name)),
    );
    if (this.element.querySelector("select")?.value !== String(seat?.seat)) {
      fill(this.element, h("label", { attrs: { for: "seat-select" } }, t("play.playingAs")), select);
    }
  }
}
