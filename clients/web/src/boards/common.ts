// What every game's renderer uses: the game's own view and material out of their
// envelopes, enum values by their proto names (as choice values and description
// arguments give them), and the two ways a piece is shown: a picture with words for
// screen readers, or a button that picks a choice.

import type { DescEnum, GameKind, GameView, Seat } from "@ludotheque/client";

import { h, type Child } from "../dom";
import { seatCalled } from "../kinds";
import type { Offer } from "./choices";

type Cases<T extends { case: unknown }> = Exclude<T["case"], undefined>;
/** A game's own view message, e.g. `ViewOf<"mooki">`: mooki.v1.View. */
export type ViewOf<K> = Extract<GameView["game"], { case: K }> extends { value: infer V } ? V : never;
/** A game's own material message, e.g. `MaterialOf<"picnic">`: picnic.v1.Material. */
export type MaterialOf<K> = Extract<GameKind["material"], { case: K }> extends { value: infer V } ? V : never;

/** The game's own view, e.g. `gameView(input.view, "mooki")`: a mooki.v1.View. */
export function gameView<K extends Cases<GameView["game"]>>(view: GameView | undefined, kind: K): ViewOf<K> | undefined {
  return view?.game.case === kind ? (view.game.value as unknown as ViewOf<K>) : undefined;
}

/** The kind's material from GetGameKind, e.g. `material(input.facts, "pirates")`. */
export function material<K extends Cases<GameKind["material"]>>(facts: GameKind | undefined, kind: K): MaterialOf<K> | undefined {
  return facts?.material.case === kind ? (facts.material.value as unknown as MaterialOf<K>) : undefined;
}

/** An enum value's proto name ("FAMILY_SUN"), as choices and descriptions name it. */
export function enumName(schema: DescEnum, value: number): string {
  return schema.values.find((v) => v.number === value)?.name ?? String(value);
}

export function seatName(seats: readonly Seat[], seat: number | undefined): string {
  if (seat === undefined) return "";
  return seatCalled(seats[seat]?.name ?? "", seat);
}

/** A piece to look at: its picture, named for screen readers by `label`. */
export function piece(className: string, label: string, ...art: Child[]): HTMLElement {
  return h("div", { class: `piece ${className}`, attrs: { role: "img", "aria-label": label, title: label } }, ...art);
}

/**
 * A piece that may be a choice of the next step: a button when `offer` offers
 * (subject, value) now, else a picture named `label`. `chosen`: it was picked already
 * (drawn raised). `group`: the arrow keys' group, when not the subject.
 */
export function pieceOrChoice(
  offer: Offer | undefined,
  subject: string,
  value: string,
  className: string,
  label: string,
  art: Child[],
  group?: string,
): HTMLElement {
  const choice = offer?.option(subject, value);
  const chosen = offer?.chosen(subject) === value;
  if (choice === undefined) {
    const shown = piece(className, label, ...art);
    if (chosen) shown.classList.add("chosen");
    return shown;
  }
  const button = h("button", { class: `piece ${className}` }, ...art);
  offer?.bind(button, choice, group);
  return button;
}

/** Names `element` as a place of the board (motion.ts: `data-anchor`); `moving`: it is a
 * piece that keeps its name from one drawing to the next, and moves by itself. */
export function named<E extends Element>(element: E, anchor: string, moving = false): E {
  element.setAttribute("data-anchor", anchor);
  if (moving) element.setAttribute("data-piece", "");
  return element;
}

/** A small counter badge, e.g. "×12". */
export function count(n: number | bigint, label: string): HTMLElement {
  return h("span", { class: "count", attrs: { "aria-hidden": "true", title: label } }, `×${n}`);
}
