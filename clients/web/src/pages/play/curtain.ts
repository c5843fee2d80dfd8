// The curtain between two people playing at one screen: "Pass to Papa", over the table,
// until Papa taps. Nothing of Papa's hand is drawn before (the board under it is the
// table as nobody's), and nothing of the one before him after.

import { glyphs } from "../../boards/icons";
import { fill, h } from "../../dom";
import { t } from "../../i18n";

export class PassCurtain {
  readonly element = h("section", { class: "curtain", attrs: { hidden: true, "aria-labelledby": "curtain-title" } });
  private shownFor: number | undefined;

  /** `unveil` is told the seat that tapped. */
  constructor(private readonly unveil: (seat: number) => void) {}

  /** Shows the curtain for `seat` (undefined: none). */
  update(seat: { seat: number; name: string } | undefined): void {
    if (seat === undefined) {
      this.element.hidden = true;
      this.shownFor = undefined;
      return;
    }
    if (this.shownFor === seat.seat && !this.element.hidden) return;
    this.shownFor = seat.seat;
    const button = h("button", { class: "primary", attrs: { type: "button" }, on: { click: () => this.unveil(seat.seat) } }, t("play.curtainReady", { name: seat.name }));
    fill(
      this.element,
      h("p", { class: "curtain-mark" }, glyphs.hide()),
      h("h2", { attrs: { id: "curtain-title" } }, t("play.passTo", { name: seat.name })),
      h("p", {}, t("play.curtainAbout", { name: seat.name })),
      button,
    );
    this.element.hidden = false;
    this.element.dataset["seat"] = String(seat.seat);
    button.focus({ preventScroll: true });
  }
}
