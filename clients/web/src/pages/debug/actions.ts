// The debug panel's actions: save the log (JSON Lines, as `ludotheque export` writes),
// and as the admin fork the game at the version shown; a note says how it went.

import { toJsonLines } from "@ludotheque/client";

import { errorText, seats as heldSeats } from "../../api";
import { fill, h } from "../../dom";
import { t } from "../../i18n";
import { paths } from "../../router";
import type { Timeline } from "../../debug/timeline";

export class PanelActions {
  /** The buttons: "Save the log", and "Fork here" when the timeline may be forked. */
  readonly buttons: HTMLElement;
  /** What the last action did (or why it failed). */
  readonly note: HTMLElement;

  /** `at` is the version shown. */
  constructor(
    private readonly timeline: Timeline,
    private readonly at: () => number,
  ) {
    const exportButton = h("button", { class: "secondary", attrs: { type: "button" }, on: { click: () => void this.exportLog() } }, t("debug.export"));
    const forkButton = timeline.fork
      ? h("button", { class: "secondary", attrs: { type: "button" }, on: { click: () => void this.fork() } }, t("debug.fork"))
      : null;
    this.note = h("p", { class: "muted", attrs: { role: "status" } });
    this.buttons = h("div", { class: "control actions" }, exportButton, forkButton);
  }

  private async exportLog(): Promise<void> {
    try {
      const log = await this.timeline.log();
      const blob = new Blob([toJsonLines(log)], { type: "application/jsonl" });
      const link = h("a", { attrs: { href: URL.createObjectURL(blob), download: `${log.header?.gameId || "game"}.jsonl` } });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      this.note.textContent = t("debug.exported");
    } catch (reason) {
      this.note.textContent = errorText(reason);
    }
  }

  /** A new game from the log cut at the version shown (ImportGame with truncate_at); its
   * seats' tokens kept in this browser like any seat's. */
  private async fork(): Promise<void> {
    const { timeline } = this;
    if (!timeline.fork) return;
    const version = this.at();
    try {
      const forked = await timeline.fork(version);
      heldSeats.keep(
        forked.gameId,
        timeline.seats.filter((seat) => !seat.bot).map((seat) => ({ seat: seat.index, name: seat.name, token: forked.seatTokens[seat.index] })),
      );
      fill(this.note, t("debug.forked", { v: version }), " ", h("a", { attrs: { href: paths.play(forked.gameId) } }, t("debug.openFork")));
    } catch (reason) {
      this.note.textContent = errorText(reason);
    }
  }
}
