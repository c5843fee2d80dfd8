// The debug panel's search over the moves: the rows matching what is typed are marked
// and counted, and Enter goes to the next one after the version shown.

import { h, uid } from "../../dom";
import { t } from "../../i18n";
import type { TimelineList } from "./timeline-list";

export class MoveSearch {
  /** The label, the search field and the count. */
  readonly element: HTMLElement;
  private readonly count = h("span", { class: "muted", attrs: { "aria-live": "polite" } });
  private query = "";

  /** Searches the rows of `list`; `at` is the version shown, `go` shows another. */
  constructor(
    private readonly list: TimelineList,
    at: () => number,
    go: (version: number) => void,
  ) {
    const id = uid("search");
    const input = h("input", {
      attrs: { id, type: "search", placeholder: t("debug.searchHint"), autocomplete: "off" },
      on: {
        input: () => {
          this.query = input.value.trim().toLowerCase();
          this.markMatches();
        },
        keydown: (event) => {
          if (event.key !== "Enter") return;
          event.preventDefault();
          const found = list.matching(this.query);
          const after = found.find((v) => v > at()) ?? found[0];
          if (after !== undefined) go(after);
        },
      },
    });
    this.element = h("div", { class: "control" }, h("label", { attrs: { for: id } }, t("debug.search")), input, this.count);
  }

  /** Marks and counts the rows matching now (their words may have come since). */
  markMatches(): void {
    const found = new Set(this.list.matching(this.query));
    this.list.markMatches(found);
    this.count.textContent = this.query ? t("debug.matches", { n: found.size }) : "";
  }
}
