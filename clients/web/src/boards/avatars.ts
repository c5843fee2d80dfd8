// A player's picture, for a child who cannot read names: an animal tapped in the lobby
// or on the join page (which names the seat too, in the page's language: "Fox",
// "Renard"), a robot for a robot's seat. The picture is kept with the seat in this
// browser (api.ts's HeldSeat); the curtain shows it, ringed in the seat's colour.

import type { GameKind } from "@ludotheque/client";

import { h } from "../dom";
import { t, type MessageKey } from "../i18n";
import { material } from "./common";
import { darker, picture, s, type SvgChild } from "./svg";

export const PICTURES = ["fox", "cat", "frog", "bear", "rabbit", "owl"] as const;
export type PictureName = (typeof PICTURES)[number] | "robot";

/** The animal's name in the page's language ("Fox", "Renard"). */
export function pictureName(name: PictureName): string {
  return t(`picture.${name}` as MessageKey);
}

export function isPicture(name: unknown): name is PictureName {
  return name === "robot" || PICTURES.includes(name as (typeof PICTURES)[number]);
}

// Each animal: its head's colour, its ears, and what its face has besides eyes.
const ANIMALS: Record<PictureName, { head: string; ears: (colour: string) => SvgChild[]; face?: SvgChild[] }> = {
  fox: { head: "#ef8a3c", ears: (c) => [s("path", { d: "M10 22 L14 4 L26 16 Z M54 22 L50 4 L38 16 Z", fill: c })], face: [s("path", { d: "M18 40 Q32 58 46 40 Q32 46 18 40 Z", fill: "#fff7ee" })] },
  cat: { head: "#9e9e9e", ears: (c) => [s("path", { d: "M12 24 L14 6 L28 16 Z M52 24 L50 6 L36 16 Z", fill: c })], face: [s("path", { d: "M14 40 L24 38 M14 44 L24 42 M50 40 L40 38 M50 44 L40 42", stroke: "#424242", "stroke-width": 1.5 })] },
  frog: { head: "#66bb6a", ears: (c) => [s("circle", { cx: 20, cy: 14, r: 8, fill: c }), s("circle", { cx: 44, cy: 14, r: 8, fill: c })], face: [s("path", { d: "M20 42 Q32 52 44 42", fill: "none", stroke: "#1b5e20", "stroke-width": 2.5, "stroke-linecap": "round" })] },
  bear: { head: "#8d6e63", ears: (c) => [s("circle", { cx: 14, cy: 14, r: 8, fill: c }), s("circle", { cx: 50, cy: 14, r: 8, fill: c })], face: [s("ellipse", { cx: 32, cy: 42, rx: 9, ry: 7, fill: "#d7ccc8" })] },
  rabbit: { head: "#eeeeee", ears: (c) => [s("ellipse", { cx: 22, cy: 12, rx: 5, ry: 11, fill: c }), s("ellipse", { cx: 42, cy: 12, rx: 5, ry: 11, fill: c })], face: [s("path", { d: "M29 46 L29 51 M35 46 L35 51", stroke: "#9e9e9e", "stroke-width": 2 })] },
  owl: { head: "#a1887f", ears: (c) => [s("path", { d: "M12 18 L16 6 L24 14 Z M52 18 L48 6 L40 14 Z", fill: c })], face: [s("circle", { cx: 23, cy: 30, r: 9, fill: "#fff8e1" }), s("circle", { cx: 41, cy: 30, r: 9, fill: "#fff8e1" }), s("path", { d: "M29 38 L32 44 L35 38 Z", fill: "#f9a825" })] },
  robot: { head: "#90a4ae", ears: (c) => [s("path", { d: "M32 10 V2", stroke: darker(c), "stroke-width": 2.5 }), s("circle", { cx: 32, cy: 3, r: 3, fill: "#e53935" })] },
};

/** The picture, drawn in a 64 × 64 box. */
export function avatar(name: PictureName): SVGSVGElement {
  const animal = ANIMALS[name];
  const robot = name === "robot";
  const head = robot
    ? s("rect", { x: 10, y: 12, width: 44, height: 42, rx: 10, fill: animal.head, stroke: darker(animal.head), "stroke-width": 2 })
    : s("circle", { cx: 32, cy: 34, r: 22, fill: animal.head, stroke: darker(animal.head), "stroke-width": 2 });
  const eyes = [23, 41].map((x) => s("circle", { cx: x, cy: robot ? 30 : 30, r: robot ? 5 : 3.5, fill: robot ? "#fffde7" : "#1f2a24" }));
  const mouth = robot ? s("rect", { x: 22, y: 42, width: 20, height: 4, rx: 2, fill: darker(animal.head, 0.5) }) : s("circle", { cx: 32, cy: 40, r: 2.5, fill: "#1f2a24" });
  return picture("0 0 64 64", ...animal.ears(animal.head), head, ...(animal.face ?? []), ...eyes, mouth);
}

/** A seat's colour: its ship's in Pirates, else one of a few that tell seats apart. */
export function seatColour(facts: GameKind | undefined, seat: number): string {
  const ships = material(facts, "pirates")?.ships;
  const ship = ships?.[seat % (ships.length || 1)]?.rgb;
  return ship || SEAT_COLOURS[seat % SEAT_COLOURS.length];
}

const SEAT_COLOURS = ["#c62828", "#1565c0", "#2e7d32", "#f9a825", "#6a1b9a", "#00838f"];

/** A row of pictures to tap, one chosen at most (a radio group): `chosen` is told each tap. */
export function picturePicker(label: string, current: PictureName | undefined, chosen: (name: PictureName) => void): HTMLElement {
  const row = h("div", { class: "picture-picker", attrs: { role: "radiogroup", "aria-label": label } });
  for (const name of PICTURES) {
    const button = h(
      "button",
      { class: "picture-choice", attrs: { type: "button", role: "radio", "aria-checked": String(name === current), "aria-label": pictureName(name), title: pictureName(name), "data-picture": name } },
      avatar(name),
    );
    button.addEventListener("click", () => {
      for (const other of row.querySelectorAll("[role=radio]")) other.setAttribute("aria-checked", String(other === button));
      chosen(name);
    });
    row.append(button);
  }
  return row;
}
