// Why a log does not replay: its first bad event (or its header), on which line, and
// how many versions before it can still be stepped through.

import { fill, h } from "../../dom";
import { t } from "../../i18n";

/** Fills `box` with `problem` (its first bad event, 0: the header); `last` is the last
 * version that can be shown. */
export function showProblem(box: HTMLElement, problem: { event: number; reason: string }, last: number, saved = false): void {
  const where = problem.event === 0 ? t("debug.theHeader") : t("debug.event", { n: problem.event, line: problem.event + 1 });
  fill(
    box,
    h("h2", {}, saved ? t("debug.notInOrder") : t("debug.doesNotReplay")),
    h("p", { attrs: { "data-problem-event": problem.event } }, t(saved ? "debug.problemSaved" : "debug.problem", { where, reason: problem.reason })),
    problem.event > 1 ? h("p", {}, t("debug.stepsBefore", { n: last })) : null,
    problem.event === 1 ? h("p", {}, t("debug.onlyTheStart")) : null,
  );
}
