// The new-game form's seats: a row per seat (a name, an age, and who plays it: a person
// here, a robot, or left open for a friend to join), as many as the kind allows. A
// person's seat gets a picture by a tap (an animal, which names the seat too, in the
// page's language: each tap on the seat's number shows the next animal; a small badge on
// it, that next animal's face, says there is a picture to tap). A seat left
// without a name is sent without one: every page and the server's words then call it
// "Player 2" in their reader's language (a French joiner reads « Joueur 2 »), which the
// empty field shows as its placeholder. A name typed or tapped is the seat's one name.

import type { GameKind } from "@ludotheque/client";

import { PICTURES, avatar, pictureName, type PictureName } from "../../boards/avatars";
import { fill, h, uid } from "../../dom";
import { t } from "../../i18n";
import { botName, botsByLevel } from "../../kinds";

// The seat chooser's value for a seat left open for a friend to join (not a bot's name).
const OPEN = "open";

/** A seat as CreateGame takes it. */
export interface NewSeat {
  name: string;
  bot: string;
  open: boolean;
  age?: number;
  /** The picture tapped for a person's seat. */
  picture?: PictureName;
}

export class SeatList {
  /** The fieldset: the rows and "Add a seat". */
  readonly element: HTMLElement;
  private readonly rows = h("ol", { class: "seats" });
  private readonly addSeat: HTMLButtonElement;
  private kind: GameKind | undefined;

  constructor() {
    this.addSeat = h("button", { class: "secondary", attrs: { type: "button" }, on: { click: () => (this.add(""), this.updateButtons()) } }, t("lobby.addSeat"));
    this.element = h("fieldset", { class: "seats-box" }, h("legend", {}, t("lobby.seats")), this.rows, this.addSeat);
  }

  /** The seats of a new game of `kind`: the fewest it takes, a person in the first, robots in the others. */
  reset(kind: GameKind): void {
    this.kind = kind;
    this.rows.replaceChildren();
    const bot = kind.bots.find((b) => b.name === "greedy")?.name ?? kind.bots[0]?.name ?? "";
    for (let index = 0; index < Math.max(kind.minSeats, 1); index++) this.add(index === 0 ? "" : bot);
    this.updateButtons();
  }

  /** The seats as filled in (an open seat's player gives their own name and age). */
  read(): NewSeat[] {
    return [...this.rows.children].map((row) => {
      const name = (row.querySelector("[name=name]") as HTMLInputElement).value.trim();
      const age = (row.querySelector("[name=age]") as HTMLInputElement).value;
      const bot = (row.querySelector("[name=bot]") as HTMLSelectElement).value;
      if (bot === OPEN) return { name: "", bot: "", open: true };
      const picture = PICTURES.find((one) => one === (row as HTMLElement).dataset["picture"]);
      return { name, bot, open: false, ...(age ? { age: Number(age) } : {}), ...(picture && !bot ? { picture } : {}) };
    });
  }

  /** A row played by `bot` ("": a person here; OPEN: left open). */
  private add(bot: string): void {
    const number = this.rows.children.length + 1;
    const nameId = uid("seat-name");
    const ageId = uid("seat-age");
    const whoId = uid("seat-who");
    const remove = (): void => {
      row.remove();
      this.updateButtons();
      (this.rows.querySelector("input") as HTMLInputElement | null)?.focus();
    };
    const row = h(
      "li",
      { class: "seat" },
      h("button", { class: "seat-number seat-picture", attrs: { type: "button", "aria-label": t("lobby.picture", { n: number }), title: t("lobby.pictureHint") } }),
      h("label", { class: "visually-hidden", attrs: { for: nameId } }, t("lobby.seatName", { n: number })),
      h("input", {
        attrs: { id: nameId, name: "name", maxlength: 64, autocomplete: "off", placeholder: t("lobby.playerName", { n: number }) },
      }),
      h("label", { class: "age-label", attrs: { for: ageId } }, t("lobby.age")),
      h("input", { class: "age", attrs: { id: ageId, name: "age", type: "number", min: 1, max: 120, inputmode: "numeric" } }),
      h("label", { class: "who-label", attrs: { for: whoId } }, t("lobby.who")),
      this.whoPlays(whoId, bot),
      h("button", { class: "remove", attrs: { type: "button", "aria-label": t("lobby.removeSeat", { n: number }) }, on: { click: remove } }, "✕"),
    );
    const name = row.querySelector("[name=name]") as HTMLInputElement;
    // A tap on the seat's picture gives it the next animal, and its name.
    const picker = row.querySelector(".seat-picture") as HTMLButtonElement;
    const show = (face: string | SVGElement): void => {
      // The badge: the animal the next tap gives, so the number reads as a thing to tap.
      const now = PICTURES.findIndex((one) => one === row.dataset["picture"]);
      fill(picker, face, h("span", { class: "picture-hint", attrs: { "aria-hidden": "true" } }, avatar(PICTURES[(now + 1) % PICTURES.length])));
    };
    show(String(number));
    picker.addEventListener("click", () => {
      const now = PICTURES.findIndex((one) => one === row.dataset["picture"]);
      const picture = PICTURES[(now + 1) % PICTURES.length];
      row.dataset["picture"] = picture;
      picker.dataset["picture"] = picture;
      show(avatar(picture));
      name.value = pictureName(picture);
    });
    this.rows.append(row);
    // An open seat's player gives their own name and age when they join.
    const who = row.querySelector("select") as HTMLSelectElement;
    const typed = [...row.querySelectorAll("input")];
    const openOrNot = (): void => {
      for (const input of typed) input.disabled = who.value === OPEN;
      picker.disabled = who.value !== "";
      if (who.value !== "" && row.dataset["picture"]) {
        // A robot or an open seat has no picture, nor the picture's name.
        if (name.value === pictureName(row.dataset["picture"] as PictureName)) name.value = "";
        delete row.dataset["picture"];
        delete picker.dataset["picture"];
        show(String(number));
      }
    };
    who.addEventListener("change", openOrNot);
    openOrNot();
  }

  /** Who plays a seat: a person here, left open, or one of the kind's bots, easiest first
   * (the easy, the good and the strong robot: kinds.ts). */
  private whoPlays(id: string, bot: string): HTMLSelectElement {
    return h(
      "select",
      { attrs: { id, name: "bot" } },
      h("option", { attrs: { value: "", selected: bot === "" } }, t("lobby.human")),
      h("option", { attrs: { value: OPEN, selected: bot === OPEN } }, t("lobby.openSeat")),
      ...botsByLevel(this.kind?.bots ?? []).map((b) => h("option", { attrs: { value: b.name, selected: b.name === bot, title: b.description?.text ?? "" } }, botName(b.name))),
    );
  }

  /** No more seats than the kind takes, no fewer. */
  private updateButtons(): void {
    const n = this.rows.children.length;
    const kind = this.kind;
    if (kind === undefined) return;
    this.addSeat.disabled = n >= kind.maxSeats;
    for (const remove of this.rows.querySelectorAll<HTMLButtonElement>("button.remove")) remove.disabled = n <= kind.minSeats;
  }
}
