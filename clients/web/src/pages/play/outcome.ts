// The play page's outcome, over the board once the game is over: the service's words for
// it, drawn as what it is for this screen — a game won (a gold star, and a little
// celebration), a game lost (a grey cloud: no star), or the end of a game watched —, then
// "Play again" for the seats held (the rematch; when another player asked for it first,
// the page says the new game is waiting), or for a spectator the rematch to watch, and a
// way back to the lobby.

import { fill, h } from "../../dom";
import { picture, s, starPoints } from "../../boards/svg";
import { t } from "../../i18n";
import { paths } from "../../router";

/** What the end is for the people at this screen. */
export type Ending = "won" | "lost" | "over";

export class OutcomePanel {
  readonly element = h("div", { class: "outcome", attrs: { hidden: true, role: "region", "aria-labelledby": "outcome-text" } });
  private shown = "";

  /** `rematch` (set when this browser holds a seat) deals the rematch and opens it;
   * `failed` shows why it could not. */
  constructor(
    private readonly rematch: (() => Promise<void>) | undefined,
    private readonly failed: (reason: unknown) => void,
  ) {}

  /** Shows the outcome in `text` for `ending` (again only when something changes: GetGame's
   * outcome comes after the last event); `offered`: another player dealt the rematch. */
  show(text: string, ending: Ending, offered: boolean, watchNext = ""): void {
    const key = `${text}|${ending}|${offered}|${watchNext}`;
    if (!this.element.hidden && key === this.shown) return;
    this.shown = key;
    const again = this.rematch
      ? h("button", { class: "primary rematch", attrs: { type: "button" }, on: { click: (event) => void this.again(event.currentTarget as HTMLButtonElement) } }, t("play.again"))
      : null;
    this.element.dataset["ending"] = ending;
    fill(
      this.element,
      ending === "won" ? confetti() : null,
      h("p", { class: "outcome-text", attrs: { id: "outcome-text" } }, h("span", { class: "outcome-mark" }, mark(ending)), " ", h("span", {}, text)),
      offered && again ? h("p", { class: "rematch-offer", attrs: { role: "status" } }, t("play.rematchOffered")) : null,
      h(
        "p",
        { class: "outcome-actions" },
        again,
        !again && watchNext ? h("a", { class: "button watch-next", attrs: { href: paths.play(watchNext) } }, t("play.watchNext")) : null,
        h("a", { class: again || watchNext ? "button secondary" : "button", attrs: { href: paths.lobby() } }, t("play.newGame")),
      ),
    );
    this.element.hidden = false;
  }

  hide(): void {
    this.element.hidden = true;
  }

  private async again(button: HTMLButtonElement): Promise<void> {
    if (this.rematch === undefined) return;
    button.disabled = true;
    try {
      await this.rematch();
    } catch (reason) {
      this.failed(reason);
      button.disabled = false;
    }
  }
}

/** A gold star for a win, a grey rain cloud for a loss, a ribbon for the end of a game watched. */
function mark(ending: Ending): SVGSVGElement {
  if (ending === "won") return picture("0 0 40 40", s("polygon", { points: starPoints(20, 21, 18, 8), fill: "#f4b942", stroke: "#8a6d00", "stroke-width": 2 }));
  if (ending === "lost") {
    return picture(
      "0 0 40 40",
      s("circle", { cx: 14, cy: 18, r: 8, fill: "#90a4ae" }),
      s("circle", { cx: 24, cy: 14, r: 10, fill: "#90a4ae" }),
      s("circle", { cx: 30, cy: 20, r: 7, fill: "#90a4ae" }),
      s("rect", { x: 10, y: 18, width: 24, height: 8, fill: "#90a4ae" }),
      ...[14, 21, 28].map((x) => s("path", { d: `M${x} 30 l-2 6`, stroke: "#546e7a", "stroke-width": 2.5, "stroke-linecap": "round" })),
    );
  }
  return picture("0 0 40 40", s("circle", { cx: 20, cy: 16, r: 11, fill: "#7fb3e0", stroke: "#3d5f8f", "stroke-width": 2 }), s("path", { d: "M13 24 L9 37 L16 33 L20 38 L20 26 Z M27 24 L31 37 L24 33 L20 38 L20 26 Z", fill: "#3d5f8f" }));
}

/** A few paper pieces falling over the panel (still under prefers-reduced-motion). */
function confetti(): HTMLElement {
  const colours = ["#f4b942", "#b03a48", "#2f6f4f", "#1565c0", "#8e24aa"];
  return h(
    "span",
    { class: "confetti", attrs: { "aria-hidden": "true" } },
    ...Array.from({ length: 14 }, (_, i) => h("span", { class: `bit bit-${i % 7} colour-${i % colours.length}` })),
  );
}
