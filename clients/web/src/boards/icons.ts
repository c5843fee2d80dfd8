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
