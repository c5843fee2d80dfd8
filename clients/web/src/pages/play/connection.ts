// The play page's connection line: nothing while connected, "reconnecting…" while the
// session resumes by itself, and once it gave up, why, with a button to try again.

import type { GameSnapshot } from "@ludotheque/client";

import { errorText } from "../../api";
import { fill, h } from "../../dom";
import { t } from "../../i18n";

export class ConnectionLine {
  readonly element = h("p", { class: "connection", attrs: { role: "status", "data-connection": "connecting" } });

  /** `retry` opens the sessions again. */
  constructor(private readonly retry: () => void) {}

  update(snapshot: GameSnapshot): void {
    const state = snapshot.status === "closed" && snapshot.error === undefined ? "done" : snapshot.status;
    const line = this.element;
    if (line.dataset["connection"] === state) return;
    line.dataset["connection"] = state;
    if (state === "reconnecting") fill(line, t("play.reconnecting"));
    else if (state === "closed") {
      fill(
        line,
        t("play.connectionLost", { reason: snapshot.error ? errorText(snapshot.error) : "" }),
        " ",
        h("button", { class: "secondary", attrs: { type: "button" }, on: { click: this.retry } }, t("play.tryAgain")),
      );
    } else fill(line);
  }
}
