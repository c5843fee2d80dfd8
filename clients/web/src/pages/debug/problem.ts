// Why a log does not replay: its first bad event (or its header), on which line, and
// how many versions before it can still be stepped through.

import type { LogProblem } from "@ludotheque/client";

import { fill, h } from "../../dom";
import { t } from "../../i18n";

/** Fills `box` with `problem`; `last` is the last version that replays. */
export function showProblem(box: HTMLElement, problem: LogProblem, last: number): void {
  const where = problem.event === 0 ? t("debug.theHeader") : t("debug.event", { n: problem.event, line: problem.event + 1 });
  fill(
    box,
    h("h2", {}, t("debug.doesNotReplay")),
    h("p", { attrs: { "data-problem-event": problem.event } }, t("debug.problem", { where, reason: problem.reason })),
    problem.event > 0 ? h("p", {}, t("debug.stepsBefore", { n: last })) : null,
  );
}
