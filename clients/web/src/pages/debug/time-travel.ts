// Time travel in the debug panel: the version slider, ◀ ▶, "Version 3 of 40", and the
// keys (← → ↑ ↓, Home, End) wherever the focus is but in a field.

import { h, uid } from "../../dom";
import { t } from "../../i18n";

export class TimeTravel {
  /** The slider with its label, the buttons and the position. */
  readonly element: HTMLElement;
  private readonly slider: HTMLInputElement;
  private readonly position: HTMLOutputElement;

  /** From version 0 to `last`; `at` is the version shown, `go` shows another. */
  constructor(
    private readonly last: number,
    private readonly at: () => number,
    private readonly go: (version: number) => void,
  ) {
    const sliderId = uid("version");
    this.slider = h("input", {
      attrs: { id: sliderId, type: "range", min: 0, max: last, step: 1, value: at(), "aria-valuetext": "" },
      on: { input: () => go(Number(this.slider.value)) },
    });
    this.position = h("output", { class: "position", attrs: { for: sliderId, "aria-live": "off" } });
    const previous = h("button", { class: "secondary", attrs: { type: "button", "aria-label": t("debug.previous") }, on: { click: () => go(at() - 1) } }, "◀");
    const next = h("button", { class: "secondary", attrs: { type: "button", "aria-label": t("debug.next") }, on: { click: () => go(at() + 1) } }, "▶");
    this.element = h("div", { class: "travel" }, h("label", { attrs: { for: sliderId } }, t("debug.version")), previous, this.slider, next, this.position);
  }

  /** Whether the slider is at `version` already. */
  isAt(version: number): boolean {
    return this.slider.value === String(version);
  }

  /** Puts the slider at `version`; returns the position in words. */
  show(version: number): string {
    this.slider.value = String(version);
    const text = t("debug.position", { v: version, last: this.last });
    this.position.textContent = text;
    this.slider.setAttribute("aria-valuetext", text);
    return text;
  }

  /** The keys travel in time wherever the focus is (on the page, a button, the board),
   * but in a field that takes them itself (text, a list to choose from, the slider). */
  listen(signal: AbortSignal): void {
    document.addEventListener(
      "keydown",
      (event) => {
        const target = event.target as HTMLElement;
        if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
        if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement || target.isContentEditable) return;
        const version = this.at();
        const moves: Record<string, number> = { ArrowLeft: version - 1, ArrowRight: version + 1, Home: 0, End: this.last, ArrowUp: version - 1, ArrowDown: version + 1 };
        if (!(event.key in moves)) return;
        event.preventDefault();
        this.go(moves[event.key]);
      },
      { signal },
    );
  }
}
