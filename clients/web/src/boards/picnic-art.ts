// Le pique-nique de Facteur Souris's pieces and tiles in SVG, painted from GetGameKind's
// facts (the pieces', friends' and grounds' colours): Facteur Souris the postman mouse
// in his cap, the friends as little round animals, the Cold Dragon, the Tent, the house
// and the picnic blanket, and each tile's face (what it does, and how far) and back.
// The project's own drawings.

import { TileBack, TileKind, type Tile } from "@ludotheque/client/gen/ludotheque/picnic/v1/picnic_pb";
import type { Material } from "@ludotheque/client/gen/ludotheque/picnic/v1/material_pb";

import { darker, inkOn, lighter, picture, s, starPoints, type SvgChild } from "./svg";

const INK = "#1f2a24";

export function pieceColour(material: Material | undefined, name: string, fallback: string): string {
  return material?.pieces.find((p) => p.piece === name)?.rgb || fallback;
}

/** Facteur Souris: a grey mouse with big ears, in his postman's cap of colour `cap`. */
export function mouse(x: number, y: number, r: number, cap: string): SVGElement {
  return s(
    "g",
    {},
    s("circle", { cx: x - r * 0.62, cy: y - r * 0.55, r: r * 0.45, fill: "#9e9e9e", stroke: INK, "stroke-width": 1.2 }),
    s("circle", { cx: x + r * 0.62, cy: y - r * 0.55, r: r * 0.45, fill: "#9e9e9e", stroke: INK, "stroke-width": 1.2 }),
    s("circle", { cx: x - r * 0.62, cy: y - r * 0.55, r: r * 0.27, fill: "#f8bbd0" }),
    s("circle", { cx: x + r * 0.62, cy: y - r * 0.55, r: r * 0.27, fill: "#f8bbd0" }),
    s("circle", { cx: x, cy: y, r: r * 0.78, fill: "#bdbdbd", stroke: INK, "stroke-width": 1.4 }),
    s("path", { d: `M${x - r * 0.62} ${y - r * 0.35} Q${x} ${y - r * 1.15} ${x + r * 0.62} ${y - r * 0.35} Z`, fill: cap, stroke: INK, "stroke-width": 1.2 }),
    s("path", { d: `M${x - r * 0.7} ${y - r * 0.32} H${x + r * 0.9}`, stroke: darker(cap, 0.3), "stroke-width": r * 0.14, "stroke-linecap": "round" }),
    s("circle", { cx: x - r * 0.27, cy: y - r * 0.02, r: r * 0.12, fill: INK }),
    s("circle", { cx: x + r * 0.27, cy: y - r * 0.02, r: r * 0.12, fill: INK }),
    s("circle", { cx: x, cy: y + r * 0.28, r: r * 0.14, fill: "#e91e63" }),
    s("path", { d: `M${x - r * 0.2} ${y + r * 0.28} H${x - r * 0.7} M${x + r * 0.2} ${y + r * 0.28} H${x + r * 0.7}`, stroke: INK, "stroke-width": 0.8 }),
    s("rect", { x: x + r * 0.35, y: y + r * 0.35, width: r * 0.7, height: r * 0.48, rx: 1.5, fill: "#fff", stroke: INK, "stroke-width": 1 }),
    s("path", { d: `M${x + r * 0.35} ${y + r * 0.35} L${x + r * 0.7} ${y + r * 0.62} L${x + r * 1.05} ${y + r * 0.35}`, fill: "none", stroke: INK, "stroke-width": 0.9 }),
  );
}

/** A friend: a round animal of colour `rgb`, with ears, and its initial (none when
 * `name` is empty: too small to read, its name is written beside it). */
export function friend(x: number, y: number, r: number, rgb: string, name: string): SVGElement {
  const ink = inkOn(rgb);
  return s(
    "g",
    {},
    s("circle", { cx: x - r * 0.6, cy: y - r * 0.7, r: r * 0.32, fill: rgb, stroke: "#fff", "stroke-width": 1.5 }),
    s("circle", { cx: x + r * 0.6, cy: y - r * 0.7, r: r * 0.32, fill: rgb, stroke: "#fff", "stroke-width": 1.5 }),
    s("circle", { cx: x, cy: y, r, fill: rgb, stroke: "#fff", "stroke-width": 2.5 }),
    s("circle", { cx: x - r * 0.36, cy: y - r * 0.42, r: r * 0.12, fill: ink }),
    s("circle", { cx: x + r * 0.36, cy: y - r * 0.42, r: r * 0.12, fill: ink }),
    // The initial fills the face: 24 units, readable (12 px) down to half size.
    name ? s("text", { x, y: y + r * 0.62, "text-anchor": "middle", "font-size": Math.max(24, r * 0.9), "font-weight": 900, fill: ink }, name.charAt(0)) : null,
  );
}

/** The Cold Dragon: a spiky creature of colour `rgb`. */
export function dragon(x: number, y: number, r: number, rgb: string): SVGElement {
  const spikes: SvgChild[] = [-0.6, -0.2, 0.2, 0.6].map((dx) =>
    s("polygon", { points: `${x + dx * r - r * 0.18},${y - r * 0.7} ${x + dx * r},${y - r * 1.15} ${x + dx * r + r * 0.18},${y - r * 0.7}`, fill: darker(rgb, 0.2) }),
  );
  return s(
    "g",
    {},
    ...spikes,
    s("ellipse", { cx: x, cy: y, rx: r, ry: r * 0.8, fill: rgb, stroke: INK, "stroke-width": 1.4 }),
    s("circle", { cx: x - r * 0.35, cy: y - r * 0.15, r: r * 0.2, fill: "#fff" }),
    s("circle", { cx: x + r * 0.35, cy: y - r * 0.15, r: r * 0.2, fill: "#fff" }),
    s("circle", { cx: x - r * 0.32, cy: y - r * 0.12, r: r * 0.09, fill: INK }),
    s("circle", { cx: x + r * 0.38, cy: y - r * 0.12, r: r * 0.09, fill: INK }),
    s("path", { d: `M${x - r * 0.4} ${y + r * 0.35} L${x - r * 0.2} ${y + r * 0.2} L${x} ${y + r * 0.35} L${x + r * 0.2} ${y + r * 0.2} L${x + r * 0.4} ${y + r * 0.35}`, fill: "none", stroke: "#fff", "stroke-width": 1.6 }),
    s("path", { d: `M${x + r} ${y + r * 0.1} q${r * 0.5} ${-r * 0.2} ${r * 0.4} ${-r * 0.6}`, fill: "none", stroke: "#b3e5fc", "stroke-width": 2, "stroke-linecap": "round" }),
  );
}

/** The Tent, of colour `rgb`: a wide canvas tent with its door open, guy ropes and a
 * little flag on its pole (never a bare triangle: that reads as a warning sign). */
export function tent(x: number, y: number, r: number, rgb: string): SVGElement {
  const base = y + r * 0.7;
  const top = y - r * 0.75;
  return s(
    "g",
    {},
    s("path", { d: `M${x - r * 1.35} ${base} L${x - r * 0.95} ${base - r * 0.55} M${x + r * 1.35} ${base} L${x + r * 0.95} ${base - r * 0.55}`, stroke: INK, "stroke-width": 1.2 }),
    s("path", { d: `M${x} ${top} V${top - r * 0.55}`, stroke: INK, "stroke-width": 1.6 }),
    s("path", { d: `M${x} ${top - r * 0.55} L${x + r * 0.55} ${top - r * 0.38} L${x} ${top - r * 0.22} Z`, fill: "#e53935" }),
    s("path", { d: `M${x} ${top} L${x + r * 1.2} ${base} H${x - r * 1.2} Z`, fill: rgb, stroke: darker(rgb, 0.45), "stroke-width": 1.6, "stroke-linejoin": "round" }),
    s("path", { d: `M${x - r * 0.6} ${base - r * 0.1} L${x - r * 0.3} ${y} M${x + r * 0.6} ${base - r * 0.1} L${x + r * 0.3} ${y}`, stroke: lighter(rgb, 0.45), "stroke-width": 1.4 }),
    s("path", { d: `M${x} ${y - r * 0.15} Q${x - r * 0.15} ${base - r * 0.3} ${x - r * 0.42} ${base} H${x + r * 0.42} Q${x + r * 0.15} ${base - r * 0.3} ${x} ${y - r * 0.15} Z`, fill: "#3e2723" }),
    s("path", { d: `M${x} ${y - r * 0.15} L${x - r * 0.42} ${base} L${x - r * 0.62} ${base} Z M${x} ${y - r * 0.15} L${x + r * 0.42} ${base} L${x + r * 0.62} ${base} Z`, fill: lighter(rgb, 0.3) }),
  );
}

/** Facteur Souris's house, about 2r wide. */
export function house(x: number, y: number, r: number): SVGElement {
  return s(
    "g",
    {},
    s("rect", { x: x - r * 0.75, y: y - r * 0.2, width: r * 1.5, height: r * 0.95, fill: "#fff3e0", stroke: INK, "stroke-width": 1.4 }),
    s("polygon", { points: `${x - r},${y - r * 0.15} ${x},${y - r * 0.95} ${x + r},${y - r * 0.15}`, fill: "#d84315", stroke: INK, "stroke-width": 1.4, "stroke-linejoin": "round" }),
    s("rect", { x: x - r * 0.18, y: y + r * 0.25, width: r * 0.36, height: r * 0.5, fill: "#8d5b3c" }),
    s("rect", { x: x + r * 0.3, y: y + r * 0.05, width: r * 0.28, height: r * 0.28, fill: "#bbdefb", stroke: INK, "stroke-width": 0.8 }),
  );
}

/** The picnic site: a checked blanket with a basket. */
export function blanket(x: number, y: number, r: number): SVGElement {
  const squares: SvgChild[] = [];
  const side = (r * 1.7) / 4;
  for (let row = 0; row < 4; row++) {
    for (let column = 0; column < 4; column++) {
      if ((row + column) % 2 === 0) squares.push(s("rect", { x: x - r * 0.85 + column * side, y: y - r * 0.85 + row * side, width: side, height: side, fill: "#e53935" }));
    }
  }
  return s(
    "g",
    {},
    s("rect", { x: x - r * 0.85, y: y - r * 0.85, width: r * 1.7, height: r * 1.7, rx: 3, fill: "#fff", stroke: "#b71c1c", "stroke-width": 1.5, transform: `rotate(-8 ${x} ${y})` }),
    s("g", { transform: `rotate(-8 ${x} ${y})` }, ...squares),
    s("path", { d: `M${x - r * 0.35} ${y - r * 0.05} Q${x} ${y - r * 0.6} ${x + r * 0.35} ${y - r * 0.05}`, fill: "none", stroke: "#8d5b3c", "stroke-width": 2.5 }),
    s("rect", { x: x - r * 0.42, y: y - r * 0.08, width: r * 0.84, height: r * 0.5, rx: 3, fill: "#d7a15a", stroke: "#8d5b3c", "stroke-width": 1.5 }),
  );
}

const TILE_LOOK: Record<number, { paper: string; ink: string }> = {
  [TileKind.FACTEUR]: { paper: "#e3f2fd", ink: "#0d47a1" },
  [TileKind.FRIEND]: { paper: "#fff3e0", ink: "#bf360c" },
  [TileKind.RAIN]: { paper: "#eceff1", ink: "#37474f" },
  [TileKind.TENT]: { paper: "#fff8e1", ink: "#6d4c00" },
  [TileKind.NIGHT]: { paper: "#1a237e", ink: "#fff59d" },
  [TileKind.DRAGON]: { paper: "#ffebee", ink: "#b71c1c" },
};

/** A tile face up (viewBox 100×100): what it does, and its number. */
export function tileFace(material: Material | undefined, tile: Tile | undefined): SVGSVGElement {
  if (tile === undefined || tile.kind === TileKind.UNSPECIFIED) return tileBack(tile?.back ?? TileBack.PLAIN);
  const look = TILE_LOOK[tile.kind] ?? { paper: "#fff", ink: INK };
  const parts: SvgChild[] = [s("rect", { x: 3, y: 3, width: 94, height: 94, rx: 12, fill: look.paper, stroke: darker(look.paper, 0.35), "stroke-width": 3 })];
  const withNumber = tile.value > 0;
  const cy = withNumber ? 42 : 50;
  switch (tile.kind) {
    case TileKind.FACTEUR:
      parts.push(mouse(50, cy, 24, pieceColour(material, "facteur", "#1565C0")));
      break;
    case TileKind.FRIEND:
      parts.push(paw(50, cy, look.ink));
      break;
    case TileKind.RAIN:
      parts.push(cloud(50, cy - 6), ...[34, 50, 66].map((x) => s("path", { d: `M${x} ${cy + 14} l-4 12`, stroke: "#1e88e5", "stroke-width": 4, "stroke-linecap": "round" })));
      break;
    case TileKind.TENT:
      parts.push(tent(50, cy + 4, 28, pieceColour(material, "tent", "#FFB300")));
      break;
    case TileKind.NIGHT:
      parts.push(
        s("path", { d: `M56 ${cy - 26} A26 26 0 1 0 56 ${cy + 26} A20 20 0 1 1 56 ${cy - 26} Z`, fill: look.ink }),
        s("polygon", { points: starPoints(72, cy - 14, 7, 3), fill: look.ink }),
        s("polygon", { points: starPoints(76, cy + 14, 5, 2), fill: look.ink }),
      );
      break;
    case TileKind.DRAGON:
      parts.push(dragon(50, cy + 2, 24, pieceColour(material, "dragon", "#C62828")));
      break;
  }
  if (withNumber) {
    const dots: SvgChild[] = [];
    for (let i = 0; i < tile.value; i++) dots.push(s("circle", { cx: 50 + (i - (tile.value - 1) / 2) * 16, cy: 84, r: 6, fill: look.ink }));
    // 30 units: 13 px on a lid place (44 px), the smallest a face is drawn.
    parts.push(...dots, s("text", { x: 82, y: 30, "text-anchor": "middle", "font-size": 30, "font-weight": 900, fill: look.ink, stroke: look.paper, "stroke-width": 2, "paint-order": "stroke" }, String(tile.value)));
  }
  return picture("0 0 100 100", ...parts);
}

function paw(x: number, y: number, rgb: string): SVGElement {
  return s(
    "g",
    { fill: rgb },
    s("ellipse", { cx: x, cy: y + 8, rx: 15, ry: 13 }),
    s("ellipse", { cx: x - 17, cy: y - 8, rx: 6, ry: 8 }),
    s("ellipse", { cx: x - 6, cy: y - 17, rx: 6, ry: 8 }),
    s("ellipse", { cx: x + 6, cy: y - 17, rx: 6, ry: 8 }),
    s("ellipse", { cx: x + 17, cy: y - 8, rx: 6, ry: 8 }),
  );
}

function cloud(x: number, y: number): SVGElement {
  return s(
    "g",
    { fill: "#90a4ae", stroke: "#546e7a", "stroke-width": 1.5 },
    s("circle", { cx: x - 14, cy: y + 4, r: 12 }),
    s("circle", { cx: x + 2, cy: y - 6, r: 16 }),
    s("circle", { cx: x + 17, cy: y + 4, r: 11 }),
    s("rect", { x: x - 14, y: y + 2, width: 31, height: 14, stroke: "none" }),
  );
}

/** A tile face down: the plain back (leaves) or the envelope back. */
export function tileBack(back: TileBack): SVGSVGElement {
  if (back === TileBack.ENVELOPE) {
    return picture(
      "0 0 100 100",
      s("rect", { x: 3, y: 3, width: 94, height: 94, rx: 12, fill: "#f3e2c0", stroke: "#a1887f", "stroke-width": 3 }),
      s("rect", { x: 20, y: 30, width: 60, height: 40, rx: 3, fill: "#fff", stroke: "#8d6e63", "stroke-width": 2.5 }),
      s("path", { d: "M20 31 L50 54 L80 31", fill: "none", stroke: "#8d6e63", "stroke-width": 2.5 }),
      s("circle", { cx: 50, cy: 54, r: 5, fill: "#d32f2f" }),
    );
  }
  return picture(
    "0 0 100 100",
    s("rect", { x: 3, y: 3, width: 94, height: 94, rx: 12, fill: "#558b2f", stroke: "#33691e", "stroke-width": 3 }),
    ...[
      [30, 32, -30],
      [68, 38, 40],
      [44, 70, 10],
    ].map(([x, y, turn]) => s("path", { d: `M${x - 12} ${y + 6} C${x - 10} ${y - 8} ${x + 2} ${y - 10} ${x + 12} ${y - 8} C${x + 10} ${y + 4} ${x} ${y + 10} ${x - 12} ${y + 6} Z`, fill: lighter("#558b2f", 0.35), transform: `rotate(${turn} ${x} ${y})` })),
  );
}
