// The debug panel's list of versions: version 0, then a row per event in its server's
// words (who and what until those come), the version shown marked, search matches
// marked, a broken log's bad event marked and the rows after it out of reach.

import type { Event } from "@ludotheque/client";

import { h } from "../../dom";
import { t } from "../../i18n";
import { describeCommand, eventKind } from "../../views/message";
import type { Timeline } from "../../debug/timeline";
import { seatName } from "./names";

export class TimelineList {
  readonly element: HTMLElement;
  /** A row per event of the timeline, in its order. */
  private readonly rows: HTMLElement[];

  /** `pick` shows the version of a row clicked. */
  constructor(
    private readonly timeline: Timeline,
    pick: (version: number) => void,
  ) {
    this.rows = timeline.events.map((event, index) => timelineRow(timeline, event, index, () => pick(Number(event.version))));
    this.element = h("ol", { class: "timeline", attrs: { "aria-label": t("debug.timeline") } }, versionZeroRow(() => pick(0)), ...this.rows);
  }

  /** Marks the row of `version` as the one shown, and scrolls it into sight. */
  showCurrent(version: number): void {
    for (const row of this.element.children) {
      const current = row.getAttribute("data-version") === String(version);
      row.classList.toggle("current", current);
      row.querySelector("button")?.toggleAttribute("aria-current", current);
      if (current) (row as HTMLElement).scrollIntoView({ block: "nearest" });
    }
  }

  /** Gives every row the words known now (more come a page at a time). */
  describe(): void {
    for (const [index, row] of this.rows.entries()) describeRow(this.timeline, row, this.timeline.events[index]);
  }

  /** The versions whose rows match `query` (lower case; none for ""). */
  matching(query: string): number[] {
    if (!query) return [];
    return this.timeline.events.filter((_, index) => this.rows[index].dataset["search"]?.includes(query)).map((event) => Number(event.version));
  }

  /** Marks the rows of the versions `found`. */
  markMatches(found: ReadonlySet<number>): void {
    for (const [index, row] of this.rows.entries()) row.classList.toggle("match", found.has(Number(this.timeline.events[index].version)));
  }
}

function versionZeroRow(onClick: () => void): HTMLElement {
  return h("li", { attrs: { "data-version": "0" } }, h("button", { class: "row", attrs: { type: "button" }, on: { click: onClick } }, h("span", { class: "version" }, "0"), " ", t("debug.start")));
}

function timelineRow(timeline: Timeline, event: Event, index: number, onClick: () => void): HTMLElement {
  const broken = timeline.problem !== undefined && timeline.problem.event === index + 1;
  const row = h(
    "li",
    { class: broken ? "broken" : "", attrs: { "data-version": String(event.version) } },
    h(
      "button",
      { class: "row", attrs: { type: "button", disabled: index + 1 > timeline.last }, on: { click: onClick } },
      h("span", { class: "version" }, String(event.version)),
      " ",
      h("span", { class: "description" }),
      broken ? h("strong", { class: "broken-mark" }, ` — ${t("debug.brokenHere")}`) : null,
    ),
  );
  describeRow(timeline, row, event);
  return row;
}

/** A row's words: the server's description of its event once known, else who and what. */
function describeRow(timeline: Timeline, row: HTMLElement, event: Event): void {
  const words = timeline.descriptions.get(Number(event.version));
  const who = seatName(timeline, event.seat);
  const kind = eventKind(event);
  const text = words ?? `${who} · ${kind}`;
  const slot = row.querySelector(".description");
  if (slot === null || slot.textContent === text) return;
  slot.textContent = text;
  row.dataset["described"] = words === undefined ? "" : "yes";
  row.dataset["search"] = `${who} ${kind} ${text} ${event.command ? describeCommand(event.command) : ""}`.toLowerCase();
}
