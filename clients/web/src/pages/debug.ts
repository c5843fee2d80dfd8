// The debug panel: step through a game or a log file version by version. A timeline of
// every event (in the server's words, in the page's language), time travel
// by slider and arrow keys, the view as any seat, a spectator or complete, the
// difference between two versions, the legal moves at a version, search for a move,
// export the log, and as the admin fork the game at a version. A log file dropped onto
// the page is verified and replayed by the server (ReplayLog), which says which event
// does not replay and why.
//
// This module is the page: where its timeline comes from (pages/debug/source.ts), and
// the panel (pages/debug/panel.ts) once it came.

import { LogFormatError } from "@ludotheque/client";

import { admin, errorText } from "../api";
import { fill, h } from "../dom";
import { t } from "../i18n";
import { gameKind } from "../kinds";
import { paths } from "../router";
import { gameTimeline, type Timeline } from "../debug/timeline";
import { showTimeline } from "./debug/panel";
import { adminTokenForm, dropZone, openFile } from "./debug/source";

export function debugPage(main: HTMLElement, gameId: string | undefined): () => void {
  const abort = new AbortController();
  const title = h("h1", { attrs: { tabindex: -1 } }, gameId ? t("debug.titleGame") : t("debug.title"));
  const source = h("div", { class: "source" });
  const problem = h("div", { class: "problem", attrs: { role: "alert" } });
  const panel = h("div", { class: "debug-panel" });
  fill(main, h("div", { class: "page debug" }, title, source, problem, panel));

  // Each timeline shown has its own signal, ended when another replaces it (or the page
  // goes): its keys, listened to on the whole document, must not move the next one too.
  let shown: AbortController | undefined;
  abort.signal.addEventListener("abort", () => shown?.abort(), { once: true });
  const load = async (making: () => Promise<Timeline>, label: string): Promise<void> => {
    shown?.abort();
    const mine = new AbortController();
    shown = mine;
    fill(problem);
    fill(panel, h("p", { class: "muted" }, t("debug.loading")));
    try {
      const timeline = await making();
      const facts = await gameKind(timeline.kind).catch(() => undefined);
      if (mine.signal.aborted) return;
      showTimeline(panel, problem, timeline, facts, label, mine.signal);
    } catch (reason) {
      if (mine.signal.aborted) return;
      fill(panel);
      fill(problem, h("p", {}, reason instanceof LogFormatError ? unreadable(reason) : errorText(reason)));
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

/** A line that cannot be read, and the version it holds (line 1 the header, line n the event of version n - 1). */
function unreadable(error: LogFormatError): string {
  const what = error.line === 1 ? t("debug.theHeaderLine") : t("debug.versionLine", { v: error.line - 1 });
  return t("debug.unreadable", { line: error.line, what, reason: error.reason });
}
