// The debug panel of one timeline (a log file, or a game of the server): its parts
// (time travel, the list of versions, the controls, the details of the version shown)
// put together, and the version, the viewer and the version compared with that they share.

import type { GameKind } from "@ludotheque/client";

import { errorText } from "../../api";
import { announce, fill, h } from "../../dom";
import { t } from "../../i18n";
import { kindName } from "../../kinds";
import type { Timeline, ViewerId } from "../../debug/timeline";
import { PanelActions } from "./actions";
import { compareChoice, viewerChoice, type Control } from "./controls";
import { details } from "./details";
import { viewerName } from "./names";
import { showProblem } from "./problem";
import { MoveSearch } from "./search";
import { TimeTravel } from "./time-travel";
import { TimelineList } from "./timeline-list";

/** Fills `panel` with `timeline` (named `label`), and `problemBox` with why it does not
 * replay to its end, if it does not. */
export function showTimeline(panel: HTMLElement, problemBox: HTMLElement, timeline: Timeline, facts: GameKind | undefined, label: string, signal: AbortSignal): void {
  if (timeline.problem) {
    showProblem(problemBox, timeline.problem, timeline.last, Boolean(timeline.saved));
    if (timeline.problem.event === 0) {
      fill(panel); // a bad header: no version to step through
      return;
    }
  }
  new TimelinePanel(timeline, facts, signal).draw(panel, label);
}

/** The panel's parts, and the version, the viewer and the version compared with they share. */
class TimelinePanel {
  private version: number;
  private viewer: ViewerId;
  private compareWith: number;
  /** Counts the refreshes asked: only the last one asked draws. */
  private shown = 0;
  private readonly travel: TimeTravel;
  private readonly viewers: Control<HTMLSelectElement>;
  private readonly compare: Control<HTMLInputElement>;
  private readonly search: MoveSearch;
  private readonly actions: PanelActions;
  private readonly list: TimelineList;
  private readonly details = h("div", { class: "details" });

  constructor(
    private readonly timeline: Timeline,
    private readonly facts: GameKind | undefined,
    private readonly signal: AbortSignal,
  ) {
    const { last } = timeline;
    this.version = last;
    this.viewer = timeline.viewers[0];
    this.compareWith = Math.max(0, last - 1);
    const at = (): number => this.version;
    const go = (version: number): void => this.go(version);
    this.travel = new TimeTravel(last, at, go);
    this.viewers = viewerChoice(timeline, (viewer) => {
      this.viewer = viewer;
      void this.refresh();
    });
    this.compare = compareChoice(last, this.compareWith, (version) => {
      this.compareWith = clamp(version, 0, last);
      void this.refresh();
    });
    this.list = new TimelineList(timeline, go);
    this.search = new MoveSearch(this.list, at, go);
    this.actions = new PanelActions(timeline, at);
  }

  /** Fills `panel`, shows the last version, and fetches the words of the rest. */
  draw(panel: HTMLElement, label: string): void {
    const { timeline, signal } = this;
    fill(
      panel,
      h("p", { class: "muted" }, t("debug.summary", { kind: kindName(timeline.kind), label, n: timeline.events.length })),
      timeline.saved ? savedNote(timeline) : null,
      this.controls(),
      this.layout(),
    );
    this.travel.listen(signal);
    this.search.markMatches();
    void this.refresh();
    // The descriptions of a long log's later versions come a page at a time.
    void timeline
      .describeAll(() => {
        this.list.describe();
        this.search.markMatches();
      }, signal)
      .catch(() => undefined); // the rows keep the event's kind
  }

  private controls(): HTMLElement {
    return h(
      "div",
      { class: "controls panel", attrs: { role: "group", "aria-label": t("debug.controls") } },
      this.travel.element,
      this.viewers.element,
      this.compare.element,
      this.search.element,
      this.actions.buttons,
      this.actions.note,
      h("p", { class: "muted keys" }, t("debug.keys")),
    );
  }

  private layout(): HTMLElement {
    const timelinePanel = h("section", { class: "panel timeline-panel", attrs: { "aria-label": t("debug.timeline") } }, h("h2", {}, t("debug.timeline")), this.list.element);
    return h("div", { class: "debug-layout" }, timelinePanel, this.details);
  }

  /** Shows version `to` (within the timeline), compared with the one before. */
  private go(to: number): void {
    const clamped = clamp(to, 0, this.timeline.last);
    if (clamped === this.version && this.travel.isAt(clamped)) return;
    this.version = clamped;
    this.compareWith = Math.max(0, clamped - 1);
    this.compare.field.value = String(this.compareWith);
    void this.refresh();
  }

  /** Draws the version shown, as the viewer saw it, and its details once they come. */
  private async refresh(): Promise<void> {
    const asked = ++this.shown;
    const { timeline, version, viewer, compareWith } = this;
    const text = this.travel.show(version);
    this.list.showCurrent(version);
    try {
      const [step, before] = await Promise.all([timeline.step(version, viewer), timeline.step(compareWith, viewer)]);
      if (asked !== this.shown || this.signal.aborted) return;
      fill(this.details, ...details({ timeline, facts: this.facts, viewer, version, step, compareWith, before }));
      announce(text);
    } catch (reason) {
      if (asked === this.shown) fill(this.details, h("p", { class: "error", attrs: { role: "alert" } }, errorText(reason)));
    }
  }
}

/** What a log saved by a player or a spectator is, and what was checked of it without its seed. */
function savedNote(timeline: Timeline): HTMLElement {
  const viewer = timeline.saved?.viewer ?? "spectator";
  return h(
    "div",
    { class: "note saved-log", attrs: { "data-saved-by": viewer } },
    h("p", {}, h("strong", {}, t("debug.savedBy", { viewer: viewerName(timeline, viewer) })), " ", t("debug.savedAbout")),
    h("p", {}, timeline.problem ? t("debug.savedChecksFailed", { n: timeline.last }) : t("debug.savedChecks", { n: timeline.events.length })),
  );
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, Number.isFinite(value) ? value : low));
}
