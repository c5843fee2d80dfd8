// The play page's outcome, over the board once the game is over: the service's words for it,
// "Play again" for the seats held (the rematch) and a way back to the lobby.

import { fill, h } from "../../dom";
import { picture, s, starPoints } from "../../boards/svg";
import { t } from "../../i18n";
import { paths } from "../../router";

export class OutcomePanel {
  readonly element = h("div", { class: "outcome", attrs: { hidden: true } });

  /** `rematch` (set when this browser holds a seat) deals the rematch and opens it;
   * `failed` shows why it could not. */
  constructor(
    private readonly rematch: (() => Promise<void>) | undefined,
    private readonly failed: (reason: unknown) => void,
  ) {}

  private shown = "";

  /** Shows the outcome in `text` (again only when the words change: GetGame's outcome
   * comes after the last event). */
  show(text: string): void {
    if (!this.element.hidden && text === this.shown) return;
    this.shown = text;
    const again = this.rematch
      ? h("button", { class: "primary rematch", attrs: { type: "button" }, on: { click: (event) => void this.again(event.currentTarget as HTMLButtonElement) } }, t("play.again"))
      : null;
    fill(
      this.element,
      h("p", { class: "outcome-text" }, h("span", { class: "outcome-mark" }, picture("0 0 40 40", s("polygon", { points: starPoints(20, 21, 18, 8), fill: "#f4b942", stroke: "#8a6d00", "stroke-width": 2 }))), " ", text),
      h("p", { class: "outcome-actions" }, again, " ", h("a", { class: again ? "button secondary" : "button", attrs: { href: paths.lobby() } }, t("play.newGame"))),
    );
    this.element.hidden = false;
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
