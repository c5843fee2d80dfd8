// Where the debug page's timeline comes from: a log file dropped anywhere on the page or
// chosen (read here, replayed by the server), or a game of the server, seen completely
// with the admin token typed into the panel.

import { ViewerRole, parseLog } from "@ludotheque/client";

import { admin, api } from "../../api";
import { h, uid } from "../../dom";
import { t } from "../../i18n";
import { logTimeline, savedTimeline, type Timeline } from "../../debug/timeline";

const MAX_FILE_BYTES = 8 << 20;

/** The timeline of a log file: replayed by the server (ReplayLog) when it is complete
 * (the admin's, with its seed), shown as saved when a player or a spectator saved it. */
export async function openFile(file: File): Promise<Timeline> {
  if (file.size > MAX_FILE_BYTES) throw new Error(t("debug.tooBig"));
  const text = await file.text();
  if (!text.trimStart().startsWith("{")) throw new Error(t("debug.notJsonl"));
  const log = parseLog(text);
  if (log.header?.viewer?.role !== ViewerRole.ADMIN || log.header.seed === undefined) return savedTimeline(log);
  return logTimeline(api(), log, admin.service());
}

/** The admin token's field (kept in the tab's sessionStorage); `reload` once one is given. */
export function adminTokenForm(reload: () => void): HTMLElement {
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

/** Where to drop a log file (or choose one); the whole of `page` takes the drop. */
export function dropZone(page: HTMLElement, open: (file: File) => void, signal: AbortSignal): HTMLElement {
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
