// A small picture of each game for the lobby, painted from its own facts: a Mooki of
// the first family, a ship of the first seat, Facteur Souris in his cap; a die for a
// kind this app has no drawing of (docs/NEW_GAME.md: a new game needs no web code).

import type { GameKind } from "@ludotheque/client";
import { FamilySchema } from "@ludotheque/client/gen/ludotheque/mooki/v1/mooki_pb";

import { emblem } from "./mooki-art";
import { mouse, pieceColour } from "./picnic-art";
import { ship } from "./pirates-art";
import { enumName, material } from "./common";
import { darker, lighter, picture, s } from "./svg";

export function kindIcon(kind: GameKind): SVGSVGElement {
  const mooki = material(kind, "mooki");
  if (mooki) {
    const family = mooki.families[0];
    const rgb = family?.rgb || "#F2B705";
    return picture(
      "0 0 64 64",
      s("circle", { cx: 32, cy: 32, r: 30, fill: lighter(rgb, 0.7) }),
      s("ellipse", { cx: 32, cy: 40, rx: 17, ry: 15, fill: rgb, stroke: darker(rgb, 0.3), "stroke-width": 1.5 }),
      s("circle", { cx: 26, cy: 37, r: 3.5, fill: "#fff" }),
      s("circle", { cx: 38, cy: 37, r: 3.5, fill: "#fff" }),
      s("circle", { cx: 26.5, cy: 37.5, r: 1.8, fill: "#1f2a24" }),
      s("circle", { cx: 38.5, cy: 37.5, r: 1.8, fill: "#1f2a24" }),
      s("path", { d: "M28 44 Q32 48 36 44", fill: "none", stroke: "#1f2a24", "stroke-width": 1.6, "stroke-linecap": "round" }),
      family ? emblem(enumName(FamilySchema, family.family), 32, 15, darker(rgb, 0.15)) : null,
    );
  }
  const pirates = material(kind, "pirates");
  if (pirates) {
    return picture(
      "0 0 64 64",
      s("circle", { cx: 32, cy: 32, r: 30, fill: "#cfe8fb" }),
      s("path", { d: "M6 46 Q14 41 22 46 T38 46 T54 46 T62 46", fill: "none", stroke: "#7fb3e0", "stroke-width": 3 }),
      ship(32, 40, pirates.ships[0]?.rgb || "#C62828"),
    );
  }
  const picnic = material(kind, "picnic");
  if (picnic) {
    return picture(
      "0 0 64 64",
      s("circle", { cx: 32, cy: 32, r: 30, fill: "#dcedc8" }),
      mouse(32, 36, 19, pieceColour(picnic, "facteur", "#1565C0")),
    );
  }
  return die();
}

/** Any other game: a die showing five. */
function die(): SVGSVGElement {
  const pips = [[22, 22], [42, 22], [32, 32], [22, 42], [42, 42]];
  return picture(
    "0 0 64 64",
    s("circle", { cx: 32, cy: 32, r: 30, fill: "#ececec" }),
    s("rect", { x: 14, y: 14, width: 36, height: 36, rx: 7, fill: "#fff", stroke: "#5f6b66", "stroke-width": 2 }),
    ...pips.map(([cx, cy]) => s("circle", { cx, cy, r: 3.6, fill: "#1f2a24" })),
  );
}

/** The little pictures of the page's switches and notices (no emoji: a font may lack them). */
export const glyphs = {
  /** A loudspeaker, with its sound waves when `on`, crossed out when not. */
  sound(on: boolean): SVGSVGElement {
    return picture(
      "0 0 24 24",
      s("path", { d: "M4 9 H8 L13 5 V19 L8 15 H4 Z", fill: "currentColor" }),
      on
        ? s("path", { d: "M16 9 Q18 12 16 15 M18.5 6.5 Q22.5 12 18.5 17.5", fill: "none", stroke: "currentColor", "stroke-width": 2, "stroke-linecap": "round" })
        : s("path", { d: "M16 9 L22 15 M22 9 L16 15", stroke: "currentColor", "stroke-width": 2, "stroke-linecap": "round" }),
    );
  },
  /** A face that speaks (words coming out of its mouth), its mouth shut and crossed out when not. */
  speech(on: boolean): SVGSVGElement {
    return picture(
      "0 0 24 24",
      s("path", { d: "M3 21 V17 Q2 15 3 12 Q3 4 10 4 Q15 4 15 9 L17 12 L15 13 V16 Q15 17 13 17 H11 V21 Z", fill: "currentColor" }),
      on
        ? s("path", { d: "M18.5 8 Q20 10 18.5 12 M20.5 5.5 Q23.5 10 20.5 14.5", fill: "none", stroke: "currentColor", "stroke-width": 1.8, "stroke-linecap": "round" })
        : s("path", { d: "M18 7 L23 12 M23 7 L18 12", stroke: "currentColor", "stroke-width": 1.8, "stroke-linecap": "round" }),
    );
  },
  /** How fast the others' moves are shown: one arrow (slow) to three (fast). */
  speed(level: number): SVGSVGElement {
    const arrows = Array.from({ length: level + 1 }, (_, i) => s("path", { d: `M${4 + i * 6} 6 L${10 + i * 6} 12 L${4 + i * 6} 18`, fill: "none", stroke: "currentColor", "stroke-width": 2.4, "stroke-linecap": "round", "stroke-linejoin": "round" }));
    return picture("0 0 24 24", ...arrows);
  },
  /** A bell, crossed out when notifications are off. */
  bell(on: boolean): SVGSVGElement {
    return picture(
      "0 0 24 24",
      s("path", { d: "M12 3 C8 3 6 6 6 10 V14 L4 17 H20 L18 14 V10 C18 6 16 3 12 3 Z", fill: "currentColor" }),
      s("circle", { cx: 12, cy: 19.5, r: 2, fill: "currentColor" }),
      on ? null : s("path", { d: "M3 3 L21 21", stroke: "#b03a48", "stroke-width": 2.5, "stroke-linecap": "round" }),
    );
  },
  /** A face with its two hands over its eyes: nobody peeks. */
  hide(): SVGSVGElement {
    const hand = (x: number, turn: number): SVGElement =>
      s(
        "g",
        { transform: `rotate(${turn} ${x} 26)`, fill: "#f4a261", stroke: "#8d5b3c", "stroke-width": 1.5 },
        ...[-6, -2, 2, 6].map((dx, i) => s("rect", { x: x + dx - 2, y: 12 + Math.abs(i - 1.5) * 2, width: 4.6, height: 14, rx: 2.3 })),
        s("rect", { x: x - 8.5, y: 20, width: 17, height: 14, rx: 6 }),
      );
    return picture(
      "0 0 64 56",
      s("circle", { cx: 32, cy: 28, r: 22, fill: "#ffcc80", stroke: "#8d5b3c", "stroke-width": 2 }),
      s("path", { d: "M24 42 Q32 47 40 42", fill: "none", stroke: "#8d5b3c", "stroke-width": 2.5, "stroke-linecap": "round" }),
      hand(22, -12),
      hand(42, 12),
    );
  },
  /** An open eye: watching. */
  eye(): SVGSVGElement {
    return picture(
      "0 0 24 24",
      s("path", { d: "M2 12 Q12 3 22 12 Q12 21 2 12 Z", fill: "none", stroke: "currentColor", "stroke-width": 2 }),
      s("circle", { cx: 12, cy: 12, r: 3.5, fill: "currentColor" }),
    );
  },
};
