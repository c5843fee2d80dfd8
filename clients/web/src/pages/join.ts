// The join page, where a join link lands (/join/CODE?game=ID): the join code takes an
// open seat (JoinGame), the game's id lets the page show the game first (GetGame, as a
// spectator: the kind, who invites, the free seats) and, once it has started, offers to
// watch it. A browser that holds a seat of the game already goes straight to it (a link
// opened again resumes the seat). The player taps a picture, which names them too (or
// types a name), and may give an age (Mooki Island's youngest starts); the seat's token comes back in the answer and is kept in this
// browser like any seat's: the link carries the code and the game's id, never a token.

import { GameStatus, type Game } from "@ludotheque/client";

import { api, errorText, seats as heldSeats } from "../api";
import { pictureName, picturePicker, type PictureName } from "../boards/avatars";
import { kindIcon } from "../boards/icons";
import { fill, h, uid } from "../dom";
import { t } from "../i18n";
import { botName, gameKind, kindName, seatCalled } from "../kinds";
import { navigate, paths } from "../router";

export function joinPage(main: HTMLElement, code: string): () => void {
  const gameId = new URLSearchParams(location.search).get("game") ?? "";
  if (gameId && heldSeats.held(gameId).length > 0) {
    // Back by the link: this browser holds a seat of the game.
    queueMicrotask(() => navigate(paths.play(gameId), { replace: true }));
    fill(main, h("p", { class: "muted" }, t("play.loading")));
    return () => undefined;
  }
  let left = false;
  const invitation = h("section", { class: "panel invitation-panel", attrs: { "aria-labelledby": "invitation-title", hidden: !gameId } }, h("p", { class: "muted" }, t("join.looking")));
  const form = joinForm(code, gameId, () => left);
  fill(
    main,
    h(
      "div",
      { class: "page join" },
      h("h1", { attrs: { id: "join-title", tabindex: -1 } }, t("join.title")),
      invitation,
      form,
      h("p", { class: "links" }, h("a", { class: "button secondary", attrs: { href: paths.lobby() } }, t("play.toLobby"))),
    ),
  );
  if (gameId) {
    api()
      .getGame(gameId)
      .then(async (game) => {
        await gameKind(game.kind).catch(() => undefined); // its name and its icon
        if (!left) showInvitation(invitation, form, game);
      })
      .catch(() => {
        if (!left) fill(invitation, h("p", { class: "muted" }, t("join.unknown")));
      });
  }
  (form.querySelector("input[name=name]") as HTMLInputElement | null)?.focus();
  return () => {
    left = true;
  };
}

/** The game the link invites to: its kind, who invites, the seats and which are free; a
 * game started or over offers to watch it instead (the form goes). */
function showInvitation(box: HTMLElement, form: HTMLElement, game: Game): void {
  const host = game.seats.find((seat) => !seat.open && !seat.bot);
  const free = game.seats.filter((seat) => seat.open).length;
  const name = kindName(game.kind);
  const title = host ? t("join.invites", { name: seatCalled(host.name, host.index), game: name }) : t("join.invitesTo", { game: name });
  void gameKind(game.kind).then((kind) => {
    if (kind) box.querySelector(".invitation")?.prepend(h("span", { class: "kind-icon" }, kindIcon(kind)));
  });
  const seats = h(
    "ul",
    { class: "join-seats", attrs: { "aria-label": t("join.seats") } },
    ...game.seats.map((seat) =>
      seat.open
        ? h("li", { class: "free" }, t("join.freeSeat"))
        : h("li", {}, seat.bot ? t("join.robot", { name: seatCalled(seat.name, seat.index), bot: botName(seat.bot) }) : seatCalled(seat.name, seat.index)),
    ),
  );
  const started = game.status !== GameStatus.OPEN;
  const watch = h("a", { class: "button primary-link", attrs: { href: paths.play(game.gameId) } }, game.status === GameStatus.FINISHED ? t("join.seeEnd") : t("join.watch"));
  fill(
    box,
    h("div", { class: "invitation" }, h("h2", { attrs: { id: "invitation-title" } }, title)),
    seats,
    started
      ? h("p", { class: "join-state", attrs: { "data-state": game.status === GameStatus.FINISHED ? "finished" : "started" } }, game.status === GameStatus.FINISHED ? t("join.over") : t("join.started"))
      : h("p", { class: "join-state", attrs: { "data-state": "open" } }, t("join.freeSeats", { n: free })),
    started ? h("p", {}, watch) : null,
  );
  box.hidden = false;
  form.hidden = started;
}

/** A name and an age, then JoinGame by the code; a refusal says why (and offers to watch). */
function joinForm(code: string, gameId: string, left: () => boolean): HTMLElement {
  const nameId = uid("join-name");
  const ageId = uid("join-age");
  // No name is a name too: the seat is then "Player 2" to every reader, in their language.
  const name = h("input", { attrs: { id: nameId, name: "name", maxlength: 64, autocomplete: "nickname" } });
  const age = h("input", { class: "age", attrs: { id: ageId, name: "age", type: "number", min: 1, max: 120, inputmode: "numeric" } });
  const submit = h("button", { class: "primary", attrs: { type: "submit" } }, t("join.take"));
  const error = h("p", { class: "error", attrs: { role: "alert" } });
  let picture: PictureName | undefined;
  const pictures = picturePicker(t("join.picture"), undefined, (tapped) => {
    picture = tapped;
    name.value = pictureName(tapped);
  });
  const form = h(
    "form",
    { class: "panel join-game", attrs: { "aria-labelledby": "join-title" } },
    h("p", {}, t("join.about", { code: code.toUpperCase() })),
    h("div", { class: "field" }, h("p", { class: "picture-label" }, t("join.picture")), pictures),
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
        if (left()) return;
        heldSeats.add(joined.gameId, { seat: joined.seat, name: name.value.trim(), token: joined.seatToken, picture });
        navigate(paths.play(joined.gameId));
      })
      .catch((reason: unknown) => {
        if (left()) return;
        fill(error, errorText(reason), gameId ? " " : null, gameId ? h("a", { attrs: { href: paths.play(gameId) } }, t("join.watchInstead")) : null);
        submit.disabled = false;
      });
  });
  return form;
}
