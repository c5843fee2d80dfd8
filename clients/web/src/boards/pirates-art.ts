// Mau Mau – Pirates & Compagnie's cards and ships in SVG, painted from GetGameKind's
// facts: each colour's sticker (flower, square, circle, star) and paint, each special
// card's sticker (window, triangle, cross), the ships' colours. A pirate card shows its
// number big and its pirate; a special card its picture; the Parrot wears the four
// colours. The project's own drawings.

import { CardKind, CardKindSchema, ColourSchema, type Card } from "@ludotheque/client/gen/ludotheque/pirates/v1/pirates_pb";
import type { Material } from "@ludotheque/client/gen/ludotheque/pirates/v1/material_pb";

import { t } from "../i18n";
import { enumName } from "./common";
import { darker, lighter, picture, s, starPoints, type SvgChild } from "./svg";

const INK = "#1f2a24";

export interface ColourLook {
  rgb: string;
  name: string;
  sticker: string;
}

export function colourLook(material: Material | undefined, colour: number): ColourLook {
  const found = material?.colours.find((c) => c.colour === colour);
  return { rgb: found?.rgb || "#9E9E9E", name: found?.name?.text || enumName(ColourSchema, colour), sticker: found?.sticker || "circle" };
}

function kindLook(material: Material | undefined, kind: number): { name: string; sticker: string } {
  const found = material?.cardKinds.find((k) => k.kind === kind);
  return { name: found?.name?.text ?? "", sticker: found?.sticker ?? "" };
}

/** A card in words: "Circle 7", "Square Sailboat", "Parrot". */
export function cardName(material: Material | undefined, card: Card | undefined): string {
  if (card === undefined || card.kind === CardKind.UNSPECIFIED) return t("pirates.hiddenCard");
  const kind = kindLook(material, card.kind).name;
  if (card.kind === CardKind.PARROT) return kind;
  const colour = colourLook(material, card.colour).name;
  if (card.kind === CardKind.PIRATE) return t("pirates.card", { colour, n: card.value });
  return t("pirates.special", { colour, kind });
}

/** A card's value as choices name it (docs/DESCRIPTIONS.md): "CARD_KIND_PIRATE/COLOUR_STAR/7". */
export function cardValue(card: Card): string {
  const kind = enumName(CardKindSchema, card.kind);
  if (card.kind === CardKind.PARROT) return kind;
  const colour = enumName(ColourSchema, card.colour);
  return card.kind === CardKind.PIRATE ? `${kind}/${colour}/${card.value}` : `${kind}/${colour}`;
}

/** A sticker shape centred on (x, y), about 2r wide. */
export function sticker(shape: string, x: number, y: number, r: number, fill: string, stroke = INK): SVGElement {
  const line = { fill, stroke, "stroke-width": Math.max(1, r / 6), "stroke-linejoin": "round" as const };
  switch (shape) {
    case "flower": {
      const petals: SvgChild[] = [];
      for (let i = 0; i < 5; i++) {
        const a = (2 * Math.PI * i) / 5 - Math.PI / 2;
        petals.push(s("circle", { cx: x + r * 0.55 * Math.cos(a), cy: y + r * 0.55 * Math.sin(a), r: r * 0.48, ...line }));
      }
      return s("g", {}, ...petals, s("circle", { cx: x, cy: y, r: r * 0.32, fill: "#fff8d6", stroke, "stroke-width": line["stroke-width"] }));
    }
    case "square":
      return s("rect", { x: x - r * 0.85, y: y - r * 0.85, width: r * 1.7, height: r * 1.7, rx: r * 0.15, ...line });
    case "star":
      return s("polygon", { points: starPoints(x, y, r * 1.05, r * 0.45), ...line });
    case "window":
      return s(
        "g",
        {},
        s("rect", { x: x - r * 0.8, y: y - r * 0.8, width: r * 1.6, height: r * 1.6, ...line }),
        s("path", { d: `M${x} ${y - r * 0.8} V${y + r * 0.8} M${x - r * 0.8} ${y} H${x + r * 0.8}`, stroke, "stroke-width": line["stroke-width"] }),
      );
    case "triangle":
      return s("polygon", { points: `${x},${y - r} ${x + r * 0.95},${y + r * 0.75} ${x - r * 0.95},${y + r * 0.75}`, ...line });
    case "cross":
      return s("path", { d: `M${x - r * 0.7} ${y - r * 0.7} L${x + r * 0.7} ${y + r * 0.7} M${x + r * 0.7} ${y - r * 0.7} L${x - r * 0.7} ${y + r * 0.7}`, stroke: fill, "stroke-width": r * 0.45, "stroke-linecap": "round" });
    default:
      return s("circle", { cx: x, cy: y, r: r * 0.9, ...line });
  }
}

/** A card's face (viewBox 100×140); a card the viewer may not see shows its back. */
export function pirateCard(material: Material | undefined, card: Card | undefined): SVGSVGElement {
  if (card === undefined || card.kind === CardKind.UNSPECIFIED) return pirateBack();
  if (card.kind === CardKind.PARROT) return parrotCard(material);
  const look = colourLook(material, card.colour);
  const deep = darker(look.rgb, look.sticker === "star" ? 0.45 : 0.2);
  const kind = kindLook(material, card.kind);
  const parts: SvgChild[] = [
    s("rect", { x: 3, y: 3, width: 94, height: 134, rx: 10, fill: "#fffdf7", stroke: look.rgb, "stroke-width": 5 }),
    s("rect", { x: 8, y: 8, width: 84, height: 124, rx: 7, fill: lighter(look.rgb, 0.85) }),
    sticker(look.sticker, 22, 23, 11, look.rgb),
  ];
  // The words are the card's label (aria-label, title): on the card, only what a child
  // reads at a glance, big enough on the smallest card (the number: 23 px at 52 px wide).
  if (card.kind === CardKind.PIRATE) {
    parts.push(
      s("text", { x: 50, y: 74, "text-anchor": "middle", "font-size": 50, "font-weight": 900, fill: deep, stroke: "#fff", "stroke-width": 1.5, "paint-order": "stroke" }, String(card.value)),
      pirateHead(50, 110, look.rgb),
    );
  } else {
    parts.push(sticker(kind.sticker, 78, 23, 10, kind.sticker === "cross" ? INK : "#fff", INK), specialPicture(card.kind, look.rgb));
  }
  return picture("0 0 100 140", ...parts);
}

function pirateHead(x: number, y: number, rgb: string): SVGElement {
  return s(
    "g",
    {},
    s("circle", { cx: x, cy: y, r: 17, fill: "#F5CBA7", stroke: "#8d5b3c", "stroke-width": 1.5 }),
    s("path", { d: `M${x - 17} ${y - 3} Q${x} ${y - 30} ${x + 17} ${y - 3} Z`, fill: rgb, stroke: darker(rgb, 0.3), "stroke-width": 1.5 }),
    s("circle", { cx: x + 19, cy: y - 6, r: 3.5, fill: rgb }),
    s("path", { d: `M${x - 14} ${y - 6} L${x + 10} ${y + 4}`, stroke: INK, "stroke-width": 1.5 }),
    s("ellipse", { cx: x - 6, cy: y + 2, rx: 5, ry: 4, fill: INK }),
    s("circle", { cx: x + 6, cy: y + 2, r: 2.2, fill: INK }),
    s("path", { d: `M${x - 6} ${y + 9} Q${x} ${y + 14} ${x + 7} ${y + 9}`, fill: "none", stroke: INK, "stroke-width": 1.8, "stroke-linecap": "round" }),
  );
}

function specialPicture(kind: CardKind, rgb: string): SVGElement {
  const deep = darker(rgb, 0.3);
  switch (kind) {
    case CardKind.SAILBOAT:
      return s(
        "g",
        {},
        s("path", { d: "M22 92 H78 L68 106 H32 Z", fill: "#8d5b3c", stroke: INK, "stroke-width": 1.5 }),
        s("path", { d: "M50 44 V92", stroke: INK, "stroke-width": 2.5 }),
        s("path", { d: "M52 46 L76 86 H52 Z", fill: rgb, stroke: deep, "stroke-width": 1.5 }),
        s("path", { d: "M48 52 L30 86 H48 Z", fill: "#fff", stroke: deep, "stroke-width": 1.5 }),
        s("path", { d: "M18 112 Q26 106 34 112 T50 112 T66 112 T82 112", fill: "none", stroke: "#4FC3F7", "stroke-width": 3 }),
      );
    case CardKind.BOTTLE:
      return s(
        "g",
        { transform: "rotate(-20 50 80)" },
        s("rect", { x: 44, y: 42, width: 12, height: 12, rx: 2, fill: "#a1887f", stroke: INK, "stroke-width": 1.5 }),
        s("path", { d: "M44 54 H56 V62 Q70 68 70 84 V108 Q70 114 64 114 H36 Q30 114 30 108 V84 Q30 68 44 62 Z", fill: lighter(rgb, 0.55), stroke: deep, "stroke-width": 2 }),
        s("rect", { x: 38, y: 80, width: 24, height: 20, rx: 2, fill: "#fff8e1", stroke: "#a1887f", "stroke-width": 1.5 }),
        s("path", { d: "M42 86 H58 M42 91 H58 M42 96 H52", stroke: "#a1887f", "stroke-width": 1.2 }),
      );
    case CardKind.SLEEPING_PIRATE:
      return s(
        "g",
        {},
        s("circle", { cx: 44, cy: 84, r: 20, fill: "#F5CBA7", stroke: "#8d5b3c", "stroke-width": 1.5 }),
        s("path", { d: "M24 80 Q44 50 64 80 Z", fill: rgb, stroke: deep, "stroke-width": 1.5 }),
        s("path", { d: "M33 86 Q37 90 41 86 M47 86 Q51 90 55 86", fill: "none", stroke: INK, "stroke-width": 2, "stroke-linecap": "round" }),
        s("ellipse", { cx: 44, cy: 96, rx: 4, ry: 3, fill: INK }),
        // The snores drawn as strokes: a picture, not words to read.
        s("path", { d: "M68 54 h8 l-8 9 h8 M76 38 h11 l-11 12 h11", fill: "none", stroke: deep, "stroke-width": 3, "stroke-linejoin": "round", "stroke-linecap": "round" }),
      );
    default:
      return s("circle", { cx: 50, cy: 80, r: 20, fill: rgb });
  }
}

function parrotCard(material: Material | undefined): SVGSVGElement {
  const colours = (material?.colours ?? []).map((c) => c.rgb);
  const paint = (i: number): string => colours[i % Math.max(colours.length, 1)] ?? "#43A047";
  const stripes: SvgChild[] = [0, 1, 2, 3].map((i) => s("rect", { x: 8 + i * 21, y: 8, width: 21, height: 10, fill: paint(i) }));
  return picture(
    "0 0 100 140",
    s("rect", { x: 3, y: 3, width: 94, height: 134, rx: 10, fill: "#fffdf7", stroke: "#2f6f4f", "stroke-width": 5 }),
    ...stripes,
    s("path", { d: "M50 100 Q30 96 34 70 Q38 46 58 44 Q72 44 72 58 Q72 66 64 68 L62 98 Z", fill: paint(2), stroke: INK, "stroke-width": 1.5 }),
    s("path", { d: "M44 74 Q30 90 40 108 L50 100 Z", fill: paint(1), stroke: INK, "stroke-width": 1.5 }),
    s("path", { d: "M56 100 L52 118 L60 116 L62 100 Z", fill: paint(0), stroke: INK, "stroke-width": 1.5 }),
    s("path", { d: "M70 54 Q82 56 76 66 Q72 62 68 62 Z", fill: paint(3), stroke: INK, "stroke-width": 1.5 }),
    s("circle", { cx: 61, cy: 54, r: 4, fill: "#fff", stroke: INK, "stroke-width": 1 }),
    s("circle", { cx: 62, cy: 54, r: 2, fill: INK }),
    s("path", { d: "M30 120 H70", stroke: "#8d5b3c", "stroke-width": 4, "stroke-linecap": "round" }),
  );
}

/** The back every card shares. */
export function pirateBack(): SVGSVGElement {
  return picture(
    "0 0 100 140",
    s("rect", { x: 3, y: 3, width: 94, height: 134, rx: 10, fill: "#23395d", stroke: "#14233b", "stroke-width": 3 }),
    s("rect", { x: 10, y: 10, width: 80, height: 120, rx: 6, fill: "none", stroke: "#7fb3e0", "stroke-width": 2 }),
    ...[40, 62, 84, 106].map((y) => s("path", { d: `M14 ${y} Q24 ${y - 6} 34 ${y} T54 ${y} T74 ${y} T94 ${y}`, fill: "none", stroke: "#3d5f8f", "stroke-width": 3 })),
    s("circle", { cx: 50, cy: 70, r: 18, fill: "#f4b942", stroke: "#14233b", "stroke-width": 2 }),
    s("path", { d: "M50 58 V84 M42 64 H58 M40 76 Q50 88 60 76", fill: "none", stroke: "#14233b", "stroke-width": 3, "stroke-linecap": "round" }),
  );
}

/** A ship of colour `rgb`, its hull's centre at (x, y), about 40 wide. */
export function ship(x: number, y: number, rgb: string): SVGElement {
  return s(
    "g",
    {},
    s("path", { d: `M${x - 20} ${y} H${x + 20} L${x + 13} ${y + 10} H${x - 13} Z`, fill: rgb, stroke: INK, "stroke-width": 1.5 }),
    s("path", { d: `M${x} ${y} V${y - 26}`, stroke: INK, "stroke-width": 2 }),
    s("path", { d: `M${x + 2} ${y - 25} L${x + 17} ${y - 4} H${x + 2} Z`, fill: "#fff", stroke: INK, "stroke-width": 1.2 }),
    s("path", { d: `M${x - 2} ${y - 20} L${x - 14} ${y - 4} H${x - 2} Z`, fill: lighter(rgb, 0.45), stroke: INK, "stroke-width": 1.2 }),
    s("path", { d: `M${x} ${y - 26} L${x + 9} ${y - 23} L${x} ${y - 20}`, fill: rgb }),
  );
}

/** The treasure island, centred on (x, y). */
export function island(x: number, y: number): SVGElement {
  return s(
    "g",
    {},
    s("ellipse", { cx: x, cy: y + 10, rx: 30, ry: 10, fill: "#f6d98b", stroke: "#c9a227", "stroke-width": 1.5 }),
    s("path", { d: `M${x - 6} ${y + 6} Q${x - 8} ${y - 10} ${x - 2} ${y - 22}`, fill: "none", stroke: "#8d5b3c", "stroke-width": 4, "stroke-linecap": "round" }),
    s("path", { d: `M${x - 2} ${y - 22} Q${x + 12} ${y - 30} ${x + 18} ${y - 16} Q${x + 6} ${y - 22} ${x - 2} ${y - 22} Q${x - 16} ${y - 30} ${x - 20} ${y - 14} Q${x - 10} ${y - 22} ${x - 2} ${y - 22}`, fill: "#43A047", stroke: "#2e7d32", "stroke-width": 1 }),
    s("rect", { x: x + 6, y: y, width: 16, height: 10, rx: 2, fill: "#a1662f", stroke: "#5d3a1a", "stroke-width": 1.2 }),
    s("rect", { x: x + 6, y: y + 3, width: 16, height: 2, fill: "#f4b942" }),
  );
}
