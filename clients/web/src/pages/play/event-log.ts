// The play page's event log: each event once, in order, in the server's words (the
// event's description in the page's language), kept scrolled to the latest.
//
// A live event tells what everybody saw as it happened; read again later, the service
// tells the past as this seat may recall it now (a game's memory rule: a Mooki card
// covered since is a card again, the place a Rain tile went back is not said). So once
// the game has moved on, the log's lines are read again from the service (ListEvents),
// one call at a time, and show what it says now: the log never tells more than the table.

import type { Event, GameSnapshot } from "@ludotheque/client";

import { h } from "../../dom";
import { t } from "../../i18n";
import { describeEvent } from "../../views/message";

export class EventLog {
  readonly element: HTMLElement;
  private readonly list = h("ol", { class: "event-log" });
  private readonly scroller = h("div", { class: "log-scroll", attrs: { role: "log", "aria-live": "polite", "aria-labelledby": "log-title", "aria-busy": "true", tabindex: 0 } }, this.list);
  private readonly lines = new Map<bigint, HTMLElement>();
  private lastLogged = 0n;
  private rereadAt = 0n;
  private rereading = false;
  private again = false;

  constructor(
    /** The events so far as the service tells them now (ListEvents). */
    private readonly history: () => Promise<Event[]>,
  ) {
    this.element = h("section", { class: "panel log-panel", attrs: { "aria-labelledby": "log-title" } }, h("h2", { attrs: { id: "log-title" } }, t("play.log")), this.scroller);
  }

  /** Adds the events of `snapshot` not logged yet; no longer busy once its view came.
   * Once more events came, the earlier lines are read again. */
  update(snapshot: GameSnapshot): void {
    const before = this.lastLogged;
    for (const event of snapshot.events) this.add(event);
    if (snapshot.view !== undefined) this.scroller.setAttribute("aria-busy", "false");
    if (before > 0n && this.lastLogged > before) void this.reread();
  }

  private add(event: Event): void {
    if (event.version <= this.lastLogged) return;
    this.lastLogged = event.version;
    const words = h("span", { class: "words" }, event.description?.text || describeEvent(event));
    this.lines.set(event.version, words);
    this.list.append(h("li", { attrs: { "data-version": String(event.version) } }, h("span", { class: "version", attrs: { "aria-hidden": "true" } }, String(event.version)), " ", words));
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  /** The lines logged so far, in the service's words now (one call at a time; news
   * meanwhile asks for one more after). A line the service no longer tells is kept. */
  private async reread(): Promise<void> {
    if (this.rereading) {
      this.again = true;
      return;
    }
    this.rereading = true;
    try {
      do {
        this.again = false;
        const upTo = this.lastLogged;
        if (upTo <= this.rereadAt) break;
        for (const event of await this.history()) {
          const line = this.lines.get(event.version);
          const text = event.description?.text || describeEvent(event);
          if (line !== undefined && event.version <= upTo && line.textContent !== text) line.textContent = text;
        }
        this.rereadAt = upTo;
      } while (this.again);
    } catch {
      // The session says when the server cannot be reached; the log keeps what it had.
    } finally {
      this.rereading = false;
    }
  }
}
