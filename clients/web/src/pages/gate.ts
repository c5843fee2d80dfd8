// The grown-ups' gate: the debug panel (an admin token, raw views, JSON diffs, forks) is
// out of a child's reach. The main menu does not show it; its pages first ask a sum of
// two two-digit numbers (a new one after each wrong answer), which a six-year-old does
// not do. Passed once, the gate stays open in this tab (sessionStorage), and the lobby's
// and the play page's ways to the panel show there.

import { fill, h, uid } from "../dom";
import { t } from "../i18n";
import { paths } from "../router";

const KEY = "ludotheque.grownUp";

/** The gate was passed in this tab. */
export function grownUp(): boolean {
  return sessionStorage.getItem(KEY) === "yes";
}

/** The gate in `main`; `open` draws the page behind it once the sum is right. */
export function gatePage(main: HTMLElement, open: () => () => void): () => void {
  let leave: () => void = () => undefined;
  const answerId = uid("gate-answer");
  const question = h("p", { class: "gate-question", attrs: { "aria-live": "polite" } });
  const answer = h("input", { attrs: { id: answerId, name: "answer", type: "number", inputmode: "numeric", required: true, autocomplete: "off" } });
  const wrong = h("p", { class: "error", attrs: { role: "alert" } });
  let sum = 0;
  const ask = (): void => {
    const a = 11 + Math.floor(Math.random() * 79);
    const b = 11 + Math.floor(Math.random() * 79);
    sum = a + b;
    question.textContent = t("gate.question", { a, b });
    answer.value = "";
  };
  const form = h(
    "form",
    { class: "panel grown-up-gate", attrs: { "aria-labelledby": "gate-title" } },
    h("p", {}, t("gate.about")),
    question,
    h("p", { class: "field" }, h("label", { attrs: { for: answerId } }, t("gate.answer")), " ", answer),
    h("div", { class: "actions" }, h("button", { class: "primary", attrs: { type: "submit" } }, t("gate.enter"))),
    wrong,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (Number(answer.value) === sum) {
      sessionStorage.setItem(KEY, "yes");
      leave = open();
      return;
    }
    wrong.textContent = t("gate.wrong");
    ask();
    answer.focus();
  });
  ask();
  fill(
    main,
    h(
      "div",
      { class: "page gate" },
      h("h1", { attrs: { id: "gate-title", tabindex: -1 } }, t("gate.title")),
      form,
      h("p", { class: "links" }, h("a", { class: "button secondary", attrs: { href: paths.lobby() } }, t("play.toLobby"))),
    ),
  );
  return () => leave();
}
