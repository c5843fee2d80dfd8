// A shown message (views/message.ts) as nested definition lists: what the generic board
// and the debug panel display of a view or an event; a grid as a table of its rows.

import { h, type Child } from "../dom";
import type { Shown } from "./message";

export function tree(shown: Shown): HTMLElement {
  switch (shown.kind) {
    case "value":
      return h("span", { class: "value" }, shown.text);
    case "list": {
      if (shown.items.length === 0) return h("span", { class: "value empty" }, "—");
      if (shown.items.every((item) => item.kind === "value")) {
        return h("span", { class: "value" }, shown.items.map((item) => (item as { text: string }).text).join(", "));
      }
      return h("ol", { class: "tree-list" }, ...shown.items.map((item) => h("li", {}, tree(item))));
    }
    case "grid": {
      const rows: HTMLElement[] = [];
      for (let at = 0; at < shown.items.length; at += shown.columns) {
        const cells = shown.items.slice(at, at + shown.columns).map((item) => h("td", {}, tree(item)));
        rows.push(h("tr", {}, ...cells));
      }
      return h("table", { class: "grid-field" }, h("tbody", {}, ...rows));
    }
    case "fields": {
      if (shown.fields.length === 0) return h("span", { class: "value empty" }, "—");
      const rows: Child[] = [];
      for (const { label, value } of shown.fields) {
        rows.push(h("dt", {}, label), h("dd", {}, tree(value)));
      }
      return h("dl", { class: "tree" }, ...rows);
    }
  }
}
