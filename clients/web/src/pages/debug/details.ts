// The debug panel's details of a version: its event (in the server's words, with all its
// fields), what changed since the version compared with, the legal moves there, and the
// board as the viewer saw it.

import { EventSchema, GameViewSchema, toJson, type GameKind } from "@ludotheque/client";

import { boardFor } from "../../boards/board";
import { h } from "../../dom";
import { t } from "../../i18n";
import { diff } from "../../views/diff";
import { describeCommand, describeEvent, eventKind, fieldLabel, show } from "../../views/message";
import { tree } from "../../views/tree";
import type { Step, Timeline, ViewerId } from "../../debug/timeline";
import { seatName, viewerName, viewerSeat } from "./names";

/** What the details show: `step` at `version`, compared with `before` at `compareWith`. */
export interface Shown {
  timeline: Timeline;
  facts: GameKind | undefined;
  viewer: ViewerId;
  version: number;
  step: Step;
  compareWith: number;
  before: Step;
}

/** The sections of the details, in their order. */
export function details(shown: Shown): HTMLElement[] {
  // A saved log has no views: nothing could replay it.
  if (shown.timeline.saved) return [eventSection(shown), h("p", { class: "note no-board" }, t("debug.noBoard"))];
  return [eventSection(shown), changesSection(shown), legalSection(shown), boardSection(shown)];
}

function eventSection({ timeline, version, step }: Shown): HTMLElement {
  const event = timeline.events.find((e) => Number(e.version) === version);
  return h(
    "section",
    { class: "panel", attrs: { "aria-labelledby": "event-title" } },
    h("h2", { attrs: { id: "event-title" } }, t("debug.eventAt", { v: version })),
    event ? h("p", { class: "event-description" }, step.event?.description?.text || timeline.descriptions.get(version) || describeEvent(event)) : h("p", { class: "muted" }, t("debug.beforeAll")),
    event ? h("p", { class: "muted" }, h("strong", {}, seatName(timeline, event.seat)), " · ", eventKind(event)) : null,
    event?.command ? h("p", { class: "muted" }, t("debug.command", { command: describeCommand(event.command) })) : null,
    event ? h("details", {}, h("summary", {}, t("debug.eventFields")), tree(show(EventSchema, event))) : null,
  );
}

/** The structural diff of the two views, a row per field changed. */
function changesSection({ version, step, compareWith, before }: Shown): HTMLElement {
  const changes = diff(before.view ? toJson(GameViewSchema, before.view) : undefined, step.view ? toJson(GameViewSchema, step.view) : undefined);
  const column = (words: string): HTMLElement => h("th", { attrs: { scope: "col" } }, words);
  const rows = changes.map((change) =>
    h(
      "tr",
      {},
      h("th", { attrs: { scope: "row" } }, change.path.map((part) => (typeof part === "number" ? `#${part + 1}` : fieldLabel(part))).join(" › ")),
      h("td", { class: "removed" }, jsonText(change.before)),
      h("td", { class: "added" }, jsonText(change.after)),
    ),
  );
  return h(
    "section",
    { class: "panel", attrs: { "aria-labelledby": "diff-title" } },
    h("h2", { attrs: { id: "diff-title" } }, t("debug.changes", { a: compareWith, b: version })),
    changes.length === 0
      ? h("p", { class: "muted" }, t("debug.noChange"))
      : h("table", { class: "diff" }, h("thead", {}, h("tr", {}, column(t("debug.where")), column(t("debug.before")), column(t("debug.after")))), h("tbody", {}, ...rows)),
  );
}

function legalSection({ viewer, version, step }: Shown): HTMLElement {
  return h(
    "section",
    { class: "panel", attrs: { "aria-labelledby": "legal-title" } },
    h("h2", { attrs: { id: "legal-title" } }, t("debug.legal", { v: version })),
    step.legalCommands.length === 0
      ? h("p", { class: "muted" }, viewer === "spectator" ? t("debug.noMovesSpectator") : t("debug.noMoves"))
      : h("ul", { class: "move-list" }, ...step.legalCommands.map((command) => h("li", {}, h("span", { class: "move read-only" }, describeCommand(command))))),
  );
}

/** The board at the version, as the viewer saw it (read-only: nothing offered). */
function boardSection({ timeline, facts, viewer, version, step }: Shown): HTMLElement {
  const board = boardFor(timeline.kind).render({ kind: timeline.kind, facts, view: step.view, seats: timeline.seats, viewerSeat: viewerSeat(viewer) });
  return h(
    "section",
    { class: "view-at", attrs: { "aria-label": t("debug.viewAt", { v: version, viewer: viewerName(timeline, viewer) }) } },
    h("div", { class: "play-board read-only", attrs: { "data-board-root": "" } }, board),
  );
}

function jsonText(value: unknown): string {
  return value === undefined ? "—" : JSON.stringify(value);
}
