// The debug panel: step through a game or a log file version by version. A timeline of
// every event (in the server's words, in the page's language), time travel
// by slider and arrow keys, the view as any seat, a spectator or complete, the
// difference between two versions, the legal moves at a version, search for a move,
// export the log, and as the admin fork the game at a version. A log file dropped onto
// the page is verified and replayed by the server (ReplayLog), which says which event
// does not replay and why.

import { EventSchema, GameViewSchema, LogFormatError, parseLog, toJson, toJsonLines, type Event } from "@ludotheque/client";

import type { GameKind } from "@ludotheque/client";

import { admin, api, errorText, seats as heldSeats } from "../api";
import { boardFor } from "../boards/board";
import { announce, fill, h, uid } from "../dom";
import { t } from "../i18n";
import { gameKind, kindName } from "../kinds";
import { paths } from "../router";
import { diff } from "../views/diff";
import { describeCommand, describeEvent, eventKind, fieldLabel, show } from "../views/message";
import { tree } from "../views/tree";
import { gameTimeline, logTimeline, type Step, type Timeline, type ViewerId } from "../debug/timeline";

const MAX_FILE_BYTES = 8 << 20;

export function debugPage(main: HTMLElement, gameId: string | undefined): () => void {
  const abort = new AbortController();
  const title = h("h1", { attrs: { tabindex: -1 } }, gameId ? t("debug.titleGame") : t("debug.title"));
  const source = h("div", { class: "source" });
  const problem = h("div", { class: "problem", attrs: { role: "alert" } });
  const panel = h("div", { class: "debug-panel" });
  fill(main, h("div", { class: "page debug" }, title, source, problem, panel));

  const load = async (making: () => Promise<Timeline>, label: string): Promise<void> => {
    fill(problem);
    fill(panel, h("p", { class: "muted" }, t("debug.loading")));
    try {
      const timeline = await making();
      const facts = await gameKind(timeline.kind).catch(() => undefined);
      if (abort.signal.aborted) return;
      showTimeline(panel, problem, timeline, facts, label, abort.signal);
    } catch (reason) {
      if (abort.signal.aborted) return;
      fill(panel);
      fill(problem, h("p", {}, reason instanceof LogFormatError ? t("debug.unreadable", { line: reason.line, reason: reason.reason }) : errorText(reason)));
    }
  };

  if (gameId) {
    const adminBox = adminTokenForm(() => void load(() => gameTimeline(gameId, admin.service()), gameId));
    fill(source, h("p", {}, t("debug.ofGame", { id: gameId }), " ", h("a", { attrs: { href: paths.play(gameId) } }, t("debug.backToGame"))), adminBox);
    void load(() => gameTimeline(gameId, admin.service()), gameId);
  } else {
    fill(source, dropZone(main, (file) => void load(() => openFile(file), file.name), abort.signal));
    fill(panel, h("p", { class: "muted" }, t("debug.dropFirst")));
  }
  return () => abort.abort();
}

async function openFile(file: File): Promise<Timeline> {
  if (file.size > MAX_FILE_BYTES) throw new Error(t("debug.tooBig"));
  const text = await file.text();
  if (!text.trimStart().startsWith("{")) throw new Error(t("debug.notJsonl"));
  return logTimeline(api(), parseLog(text), admin.service());
}

function adminTokenForm(reload: () => void): HTMLElement {
  const id = uid("admin");
  const input = h("input", { attrs: { id, type: "password", autocomplete: "off", value: admin.token() } });
  return h(
    "form",
    {
      class: "admin-token",
      on: {
        submit: (event) => {
          event.preventDefault();
          admin.setToken(input.value.trim());
          reload();
        },
      },
    },
    h("label", { attrs: { for: id } }, t("debug.adminToken")),
    input,
    h("button", { class: "secondary", attrs: { type: "submit" } }, t("debug.useToken")),
  );
}

function dropZone(page: HTMLElement, open: (file: File) => void, signal: AbortSignal): HTMLElement {
  const inputId = uid("log-file");
  const input = h("input", {
    class: "visually-hidden",
    attrs: { id: inputId, type: "file", accept: ".jsonl,.json,application/jsonl,application/x-ndjson,text/plain" },
    on: {
      change: () => {
        const file = input.files?.[0];
        if (file) open(file);
      },
    },
  });
  const zone = h(
    "div",
    { class: "drop-zone", attrs: { "data-drop": "" } },
    h("p", {}, t("debug.drop")),
    input,
    h("label", { class: "button", attrs: { for: inputId } }, t("debug.chooseFile")),
  );
  // The whole page takes the drop, so a file let go anywhere opens.
  const over = (event: DragEvent): void => {
    event.preventDefault();
    zone.classList.add("dragging");
  };
  const leave = (): void => zone.classList.remove("dragging");
  const drop = (event: DragEvent): void => {
    event.preventDefault();
    leave();
    const file = event.dataTransfer?.files[0];
    if (file) open(file);
  };
  page.addEventListener("dragover", over, { signal });
  page.addEventListener("dragleave", leave, { signal });
  page.addEventListener("drop", drop, { signal });
  return zone;
}

function seatName(timeline: Timeline, seat: number | undefined): string {
  if (seat === undefined) return t("debug.theGame");
  return timeline.seats[seat]?.name ?? t("debug.seat", { n: seat });
}

function viewerName(timeline: Timeline, viewer: ViewerId): string {
  if (viewer === "admin") return t("debug.asAdmin");
  if (viewer === "spectator") return t("debug.asSpectator");
  return t("debug.asSeat", { name: seatName(timeline, Number(viewer.slice(5))) });
}

function showTimeline(panel: HTMLElement, problemBox: HTMLElement, timeline: Timeline, facts: GameKind | undefined, label: string, signal: AbortSignal): void {
  const last = timeline.last;
  let version = last;
  let viewer: ViewerId = timeline.viewers[0];
  let compareWith = Math.max(0, last - 1);
  let query = "";

  if (timeline.problem) {
    const where = timeline.problem.event === 0 ? t("debug.theHeader") : t("debug.event", { n: timeline.problem.event, line: timeline.problem.event + 1 });
    fill(
      problemBox,
      h("h2", {}, t("debug.doesNotReplay")),
      h("p", { attrs: { "data-problem-event": timeline.problem.event } }, t("debug.problem", { where, reason: timeline.problem.reason })),
      timeline.problem.event > 0 ? h("p", {}, t("debug.stepsBefore", { n: last })) : null,
    );
    if (timeline.problem.event === 0) {
      fill(panel);
      return;
    }
  }

  const sliderId = uid("version");
  const slider = h("input", {
    attrs: { id: sliderId, type: "range", min: 0, max: last, step: 1, value: version, "aria-valuetext": "" },
    on: { input: () => go(Number(slider.value)) },
  });
  const position = h("output", { class: "position", attrs: { for: sliderId, "aria-live": "off" } });
  const previous = h("button", { class: "secondary", attrs: { type: "button", "aria-label": t("debug.previous") }, on: { click: () => go(version - 1) } }, "◀");
  const next = h("button", { class: "secondary", attrs: { type: "button", "aria-label": t("debug.next") }, on: { click: () => go(version + 1) } }, "▶");

  const viewerId = uid("viewer");
  const viewerSelect = h(
    "select",
    { attrs: { id: viewerId }, on: { change: () => ((viewer = viewerSelect.value as ViewerId), void refresh()) } },
    ...timeline.viewers.map((v) => h("option", { attrs: { value: v } }, viewerName(timeline, v))),
  );
  const compareId = uid("compare");
  const compareInput = h("input", {
    attrs: { id: compareId, type: "number", min: 0, max: last, value: compareWith, inputmode: "numeric" },
    on: { change: () => ((compareWith = clamp(Number(compareInput.value), 0, last)), void refresh()) },
  });
  const searchId = uid("search");
  const searchCount = h("span", { class: "muted", attrs: { "aria-live": "polite" } });
  const searchInput = h("input", {
    attrs: { id: searchId, type: "search", placeholder: t("debug.searchHint"), autocomplete: "off" },
    on: {
      input: () => {
        query = searchInput.value.trim().toLowerCase();
        markMatches();
      },
      keydown: (event) => {
        if (event.key !== "Enter") return;
        event.preventDefault();
        const found = matches();
        const after = found.find((v) => v > version) ?? found[0];
        if (after !== undefined) go(after);
      },
    },
  });
  const exportButton = h("button", { class: "secondary", attrs: { type: "button" }, on: { click: () => void exportLog() } }, t("debug.export"));
  const forkButton = timeline.fork
    ? h("button", { class: "secondary", attrs: { type: "button" }, on: { click: () => void fork() } }, t("debug.fork"))
    : null;
  const actionNote = h("p", { class: "muted", attrs: { role: "status" } });

  const events = timeline.events;
  const rows = events.map((event, index) => timelineRow(timeline, event, index, () => go(Number(event.version))));
  const list = h("ol", { class: "timeline", attrs: { "aria-label": t("debug.timeline") } }, versionZeroRow(() => go(0)), ...rows);

  const details = h("div", { class: "details" });

  fill(
    panel,
    h("p", { class: "muted" }, t("debug.summary", { kind: kindName(timeline.kind), label, n: events.length })),
    h(
      "div",
      { class: "controls panel", attrs: { role: "group", "aria-label": t("debug.controls") } },
      h("div", { class: "travel" }, h("label", { attrs: { for: sliderId } }, t("debug.version")), previous, slider, next, position),
      h("div", { class: "control" }, h("label", { attrs: { for: viewerId } }, t("debug.viewer")), viewerSelect),
      h("div", { class: "control" }, h("label", { attrs: { for: compareId } }, t("debug.compareWith")), compareInput),
      h("div", { class: "control" }, h("label", { attrs: { for: searchId } }, t("debug.search")), searchInput, searchCount),
      h("div", { class: "control actions" }, exportButton, forkButton),
      actionNote,
      h("p", { class: "muted keys" }, t("debug.keys")),
    ),
    h("div", { class: "debug-layout" }, h("section", { class: "panel timeline-panel", attrs: { "aria-label": t("debug.timeline") } }, h("h2", {}, t("debug.timeline")), list), details),
  );

  // Arrow keys travel in time anywhere on the panel but in a text field.
  panel.addEventListener(
    "keydown",
    (event) => {
      const target = event.target as HTMLElement;
      if (target instanceof HTMLInputElement && target.type !== "range") return;
      if (target instanceof HTMLSelectElement || target === slider) return;
      const moves: Record<string, number> = { ArrowLeft: version - 1, ArrowRight: version + 1, Home: 0, End: last, ArrowUp: version - 1, ArrowDown: version + 1 };
      if (!(event.key in moves)) return;
      event.preventDefault();
      go(moves[event.key]);
    },
    { signal },
  );

  function matches(): number[] {
    if (!query) return [];
    return events.filter((_, index) => rows[index].dataset["search"]?.includes(query)).map((event) => Number(event.version));
  }

  function markMatches(): void {
    const found = new Set(matches());
    for (const [index, row] of rows.entries()) row.classList.toggle("match", found.has(Number(events[index].version)));
    searchCount.textContent = query ? t("debug.matches", { n: found.size }) : "";
  }

  function go(to: number): void {
    const clamped = clamp(to, 0, last);
    if (clamped === version && slider.value === String(clamped)) return;
    version = clamped;
    compareWith = Math.max(0, version - 1);
    compareInput.value = String(compareWith);
    void refresh();
  }

  let shown = 0;
  async function refresh(): Promise<void> {
    const asked = ++shown;
    slider.value = String(version);
    const text = t("debug.position", { v: version, last });
    position.textContent = text;
    slider.setAttribute("aria-valuetext", text);
    for (const row of list.children) {
      const current = row.getAttribute("data-version") === String(version);
      row.classList.toggle("current", current);
      row.querySelector("button")?.toggleAttribute("aria-current", current);
      if (current) (row as HTMLElement).scrollIntoView({ block: "nearest" });
    }
    try {
      const [step, before] = await Promise.all([timeline.step(version, viewer), timeline.step(compareWith, viewer)]);
      if (asked !== shown || signal.aborted) return;
      showDetails(step, before);
      announce(text);
    } catch (reason) {
      if (asked === shown) fill(details, h("p", { class: "error", attrs: { role: "alert" } }, errorText(reason)));
    }
  }

  function showDetails(step: Step, before: Step): void {
    const event = events.find((e) => Number(e.version) === version);
    const changes = diff(
      before.view ? toJson(GameViewSchema, before.view) : undefined,
      step.view ? toJson(GameViewSchema, step.view) : undefined,
    );
    fill(
      details,
      h(
        "section",
        { class: "panel", attrs: { "aria-labelledby": "event-title" } },
        h("h2", { attrs: { id: "event-title" } }, t("debug.eventAt", { v: version })),
        event ? h("p", { class: "event-description" }, step.event?.description?.text || timeline.descriptions.get(version) || describeEvent(event)) : h("p", { class: "muted" }, t("debug.beforeAll")),
        event ? h("p", { class: "muted" }, h("strong", {}, seatName(timeline, event.seat)), " · ", eventKind(event)) : null,
        event?.command ? h("p", { class: "muted" }, t("debug.command", { command: describeCommand(event.command) })) : null,
        event ? h("details", {}, h("summary", {}, t("debug.eventFields")), tree(show(EventSchema, event))) : null,
      ),
      h(
        "section",
        { class: "panel", attrs: { "aria-labelledby": "diff-title" } },
        h("h2", { attrs: { id: "diff-title" } }, t("debug.changes", { a: compareWith, b: version })),
        changes.length === 0
          ? h("p", { class: "muted" }, t("debug.noChange"))
          : h(
              "table",
              { class: "diff" },
              h("thead", {}, h("tr", {}, h("th", { attrs: { scope: "col" } }, t("debug.where")), h("th", { attrs: { scope: "col" } }, t("debug.before")), h("th", { attrs: { scope: "col" } }, t("debug.after")))),
              h(
                "tbody",
                {},
                ...changes.map((change) =>
                  h(
                    "tr",
                    {},
                    h("th", { attrs: { scope: "row" } }, change.path.map((part) => (typeof part === "number" ? `#${part + 1}` : fieldLabel(part))).join(" › ")),
                    h("td", { class: "removed" }, jsonText(change.before)),
                    h("td", { class: "added" }, jsonText(change.after)),
                  ),
                ),
              ),
            ),
      ),
      h(
        "section",
        { class: "panel", attrs: { "aria-labelledby": "legal-title" } },
        h("h2", { attrs: { id: "legal-title" } }, t("debug.legal", { v: version })),
        step.legalCommands.length === 0
          ? h("p", { class: "muted" }, viewer === "spectator" ? t("debug.noMovesSpectator") : t("debug.noMoves"))
          : h("ul", { class: "move-list" }, ...step.legalCommands.map((command) => h("li", {}, h("span", { class: "move read-only" }, describeCommand(command))))),
      ),
      h(
        "section",
        { class: "view-at", attrs: { "aria-label": t("debug.viewAt", { v: version, viewer: viewerName(timeline, viewer) }) } },
        h("div", { class: "play-board read-only", attrs: { "data-board-root": "" } }, boardFor(timeline.kind).render({ kind: timeline.kind, facts, view: step.view, seats: timeline.seats, viewerSeat: viewer.startsWith("seat:") ? Number(viewer.slice(5)) : undefined })),
      ),
    );
  }

  async function exportLog(): Promise<void> {
    try {
      const log = await timeline.log();
      const blob = new Blob([toJsonLines(log)], { type: "application/jsonl" });
      const link = h("a", { attrs: { href: URL.createObjectURL(blob), download: `${log.header?.gameId || "game"}.jsonl` } });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      actionNote.textContent = t("debug.exported");
    } catch (reason) {
      actionNote.textContent = errorText(reason);
    }
  }

  async function fork(): Promise<void> {
    if (!timeline.fork) return;
    try {
      const forked = await timeline.fork(version);
      heldSeats.keep(
        forked.gameId,
        timeline.seats.filter((seat) => !seat.bot).map((seat) => ({ seat: seat.index, name: seat.name, token: forked.seatTokens[seat.index] })),
      );
      fill(actionNote, t("debug.forked", { v: version }), " ", h("a", { attrs: { href: paths.play(forked.gameId) } }, t("debug.openFork")));
    } catch (reason) {
      actionNote.textContent = errorText(reason);
    }
  }

  markMatches();
  void refresh();
  // The descriptions of a long log's later versions come a page at a time.
  void timeline
    .describeAll(() => {
      for (const [index, row] of rows.entries()) describeRow(timeline, row, events[index]);
      markMatches();
    }, signal)
    .catch(() => undefined); // the rows keep the event's kind
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

function jsonText(value: unknown): string {
  return value === undefined ? "—" : JSON.stringify(value);
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, Number.isFinite(value) ? value : low));
}
