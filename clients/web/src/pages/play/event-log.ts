// The play page's event log: each event once, in order, in the server's words (the
// event's description in the page's language), kept scrolled to the latest.

import type { Event, GameSnapshot } from "@ludotheque/client";

import { h } from "../../dom";
import { t } from "../../i18n";
import { describeEvent } from "../../views/message";

export class EventLog {
  readonly element: HTMLElement;
  private readonly list = h("ol", { class: "event-log" });
  private readonly scroller = h("div", { class: "log-scroll", attrs: { role: "log", "aria-live": "polite", "aria-labelledby": "log-title", "aria-busy": "true", tabindex: 0 } }, this.list);
  private lastLogged = 0n;

  constructor() {
    this.element = h("section", { class: "panel log-panel", attrs: { "aria-labelledby": "log-title" } }, h("h2", { attrs: { id: "log-title" } }, t("play.log")), this.scroller);
  }

  /** Adds the events of `snapshot` not logged yet; no longer busy once its view came. */
  update(snapshot: GameSnapshot): void {
    for (const event of snapshot.events) this.add(event);
    if (snapshot.view !== undefined) this.scroller.setAttribute("aria-busy", "false");
  }

  private add(event: Event): void {
    if (event.version <= this.lastLogged) return;
    this.lastLogged = event.version;
    this.list.append(
      h(
        "li",
        { attrs: { "data-version": String(event.version) } },
        h("span", { class: "version", attrs: { "aria-hidden": "true" } }, String(event.version)),
        " ",
        event.description?.text || describeEvent(event),
      ),
    );
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }
}
