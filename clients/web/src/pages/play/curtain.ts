// The curtain between two people playing at one screen: "Pass to Papa", over the table,
// until Papa taps. Nothing of Papa's hand is drawn before (the board under it is the
// table as nobody's), and nothing of the one before him after. It shows Papa's picture
// (the one tapped for his seat, else the hands over the eyes) ringed in his seat's
// colour, and his button is his picture too: a child who cannot read knows whose turn.
// Only in a game that hides something from a seat (GameKind.seatSecrets: play/sessions.ts).

import { avatar, isPicture } from "../../boards/avatars";
import { glyphs } from "../../boards/icons";
import { picture, s } from "../../boards/svg";
import { fill, h } from "../../dom";
import { t } from "../../i18n";

export class PassCurtain {
  readonly element = h("section", { class: "curtain", attrs: { hidden: true, "aria-labelledby": "curtain-title" } });
  private shownFor: number | undefined;

  /** `unveil` is told the seat that tapped. */
  constructor(private readonly unveil: (seat: number) => void) {}

  /** Shows the curtain for `seat` (undefined: none), in its `colour`. */
  update(seat: { seat: number; name: string; picture?: string } | undefined, colour = ""): void {
    if (seat === undefined) {
      this.element.hidden = true;
      this.shownFor = undefined;
      return;
    }
    if (this.shownFor === seat.seat && !this.element.hidden) return;
    this.shownFor = seat.seat;
    const face = isPicture(seat.picture) ? avatar(seat.picture) : glyphs.hide();
    const button = h(
      "button",
      { class: "primary curtain-ready", attrs: { type: "button" }, on: { click: () => this.unveil(seat.seat) } },
      h("span", { class: "button-picture", attrs: { "aria-hidden": "true" } }, isPicture(seat.picture) ? avatar(seat.picture) : glyphs.eye()),
      t("play.curtainReady", { name: seat.name }),
    );
    const mark = h("p", { class: "curtain-mark", attrs: { "data-picture": seat.picture ?? "", "data-colour": colour } }, face);
    mark.append(colourRing(colour));
    fill(
      this.element,
      mark,
      h("h2", { attrs: { id: "curtain-title" } }, t("play.passTo", { name: seat.name })),
      h("p", {}, t("play.curtainAbout", { name: seat.name })),
      button,
    );
    this.element.hidden = false;
    this.element.dataset["seat"] = String(seat.seat);
    button.focus({ preventScroll: true });
  }
}

/** A ring in the seat's colour around its picture (an SVG: the page's CSP allows no inline style). */
function colourRing(colour: string): SVGSVGElement {
  return picture("0 0 100 100", s("circle", { cx: 50, cy: 50, r: 46, fill: "none", stroke: colour || "#9e9e9e", "stroke-width": 8 }));
}
