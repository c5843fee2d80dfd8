// The join page, where a join link lands (/join/CODE): the player gives a name (and an
// age: Mooki Island's youngest starts) and takes an open seat with JoinGame, by the
// game's join code. The seat's token comes back in the answer and is kept in this
// browser like any seat's; the link itself carries the code only, never a token.

import { api, errorText, seats as heldSeats } from "../api";
import { fill, h, uid } from "../dom";
import { t } from "../i18n";
import { navigate, paths } from "../router";

export function joinPage(main: HTMLElement, code: string): () => void {
  let left = false;
  const nameId = uid("join-name");
  const ageId = uid("join-age");
  const name = h("input", { attrs: { id: nameId, name: "name", required: true, maxlength: 64, autocomplete: "nickname" } });
  const age = h("input", { class: "age", attrs: { id: ageId, name: "age", type: "number", min: 1, max: 120, inputmode: "numeric" } });
  const submit = h("button", { class: "primary", attrs: { type: "submit" } }, t("join.take"));
  const error = h("p", { class: "error", attrs: { role: "alert" } });
  const form = h(
    "form",
    { class: "panel join-game", attrs: { "aria-labelledby": "join-title" } },
    h("p", {}, t("join.about", { code: code.toUpperCase() })),
    h("p", { class: "field" }, h("label", { attrs: { for: nameId } }, t("join.name")), " ", name),
    h("p", { class: "field" }, h("label", { attrs: { for: ageId } }, t("join.age")), " ", age),
    h("div", { class: "actions" }, submit),
    error,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    error.textContent = "";
    submit.disabled = true;
    const years = age.value ? { age: Number(age.value) } : {};
    api()
      .joinGame(code, name.value.trim(), years)
      .then((joined) => {
        if (left) return;
        heldSeats.add(joined.gameId, { seat: joined.seat, name: name.value.trim(), token: joined.seatToken });
        navigate(paths.play(joined.gameId));
      })
      .catch((reason: unknown) => {
        if (left) return;
        error.textContent = errorText(reason);
        submit.disabled = false;
      });
  });
  fill(
    main,
    h(
      "div",
      { class: "page join" },
      h("h1", { attrs: { id: "join-title", tabindex: -1 } }, t("join.title")),
      form,
      h("p", { class: "links" }, h("a", { attrs: { href: paths.lobby() } }, t("play.toLobby"))),
    ),
  );
  name.focus();
  return () => {
    left = true;
  };
}
