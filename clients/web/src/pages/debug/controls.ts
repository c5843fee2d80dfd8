// Two of the debug panel's controls: whose eyes the versions are seen through, and which
// version the one shown is compared with.

import { h, uid } from "../../dom";
import { t } from "../../i18n";
import type { Timeline, ViewerId } from "../../debug/timeline";
import { viewerName } from "./names";

/** A labelled control, and the field it holds. */
export interface Control<T extends HTMLElement> {
  element: HTMLElement;
  field: T;
}

/** The viewers of `timeline` (the first one chosen); `choose` is told the one picked. */
export function viewerChoice(timeline: Timeline, choose: (viewer: ViewerId) => void): Control<HTMLSelectElement> {
  const id = uid("viewer");
  const field = h(
    "select",
    { attrs: { id }, on: { change: () => choose(field.value as ViewerId) } },
    ...timeline.viewers.map((v) => h("option", { attrs: { value: v } }, viewerName(timeline, v))),
  );
  return { element: h("div", { class: "control" }, h("label", { attrs: { for: id } }, t("debug.viewer")), field), field };
}

/** A version from 0 to `last`, at `value` first; `change` is told each one typed. */
export function compareChoice(last: number, value: number, change: (version: number) => void): Control<HTMLInputElement> {
  const id = uid("compare");
  const field = h("input", {
    attrs: { id, type: "number", min: 0, max: last, value, inputmode: "numeric" },
    on: { change: () => change(Number(field.value)) },
  });
  return { element: h("div", { class: "control" }, h("label", { attrs: { for: id } }, t("debug.compareWith")), field), field };
}
