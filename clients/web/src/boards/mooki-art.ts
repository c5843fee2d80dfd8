// Mooki Island's cards drawn in SVG: a Mooki is a round little creature in its family's
// colour (GetGameKind's FamilyMaterial.rgb) under its family's emblem; a Legendary Mooki
// wears a crown in a golden frame and counts twice; a Spider is a dark card with a
// spider (FaceKindMaterial.rgb). The project's own drawings: the rulebook's art is not
// copied.

import { FaceKind, FamilySchema, type Face } from "@ludotheque/client/gen/ludotheque/mooki/v1/mooki_pb";
import type { Material } from "@ludotheque/client/gen/ludotheque/mooki/v1/material_pb";

import { t } from "../i18n";
import { enumName } from "./common";
import { darker, inkOn, lighter, picture, s, starPoints, type SvgChild } from "./svg";

const GOLD = "#C9A227";
const INK = "#1f2a24";

/** The family's colour and name from the facts. */
export function familyLook(material: Material | undefined, family: number): { rgb: string; name: string } {
  const found = material?.families.find((f) => f.family === family);
  return { rgb: found?.rgb || "#9E9E9E", name: found?.name?.text || enumName(FamilySchema, family) };
}

function spiderLook(material: Material | undefined): { rgb: string; name: string } {
  const found = material?.faceKinds.find((k) => k.kind === FaceKind.SPIDER);
  return { rgb: found?.rgb || "#37474F", name: found?.name?.text || "Spider" };
}

/** The words for a face: "Sun Mooki", "Legendary Moon Mooki", "Spider". */
export function faceName(material: Material | undefined, face: Face | undefined): string {
  if (face === undefined || face.kind === FaceKind.UNSPECIFIED) return "?";
  if (face.kind === FaceKind.SPIDER) return spiderLook(material).name;
  const family = familyLook(material, face.family).name;
  const kind = material?.faceKinds.find((k) => k.kind === face.kind)?.name?.text ?? "Mooki";
  return t("mooki.face", { family, kind });
}

/** One face as a whole card (viewBox 100×140). */
export function mookiCard(material: Material | undefined, face: Face | undefined): SVGSVGElement {
  if (face === undefined || face.kind === FaceKind.UNSPECIFIED) return cardBack();
  if (face.kind === FaceKind.SPIDER) return spiderCard(spiderLook(material));
  const look = familyLook(material, face.family);
  const legendary = face.kind === FaceKind.LEGENDARY;
  return picture(
    "0 0 100 140",
    s("rect", { x: 3, y: 3, width: 94, height: 134, rx: 11, fill: lighter(look.rgb, 0.8), stroke: legendary ? GOLD : look.rgb, "stroke-width": legendary ? 6 : 3 }),
    legendary ? s("rect", { x: 9, y: 9, width: 82, height: 122, rx: 8, fill: "none", stroke: lighter(GOLD, 0.3), "stroke-width": 1.5, "stroke-dasharray": "3 3" }) : null,
    emblem(enumName(FamilySchema, face.family), 50, 30, darker(look.rgb, 0.15)),
    creature(look.rgb, 50, 80, legendary),
    legendary ? s("polygon", { points: starPoints(17, 20, 7, 3), fill: GOLD }) : null,
    legendary ? s("polygon", { points: starPoints(84, 20, 7, 3), fill: GOLD }) : null,
    // Legendaries count twice: "×2" big enough to read on the smallest card (28 units: 12 px at 44 px).
    legendary ? s("text", { x: 50, y: 131, "text-anchor": "middle", "font-size": 28, "font-weight": 900, fill: darker(GOLD, 0.45), stroke: "#fff", "stroke-width": 2, "paint-order": "stroke" }, "×2") : null,
  );
}

/** A little round creature: body, eyes, smile, cheeks (and a crown when legendary). */
function creature(rgb: string, x: number, y: number, legendary: boolean): SVGElement {
  const outline = darker(rgb, 0.3);
  return s(
    "g",
    {},
    s("ellipse", { cx: x - 22, cy: y + 18, rx: 7, ry: 5, fill: rgb, stroke: outline, "stroke-width": 1.5 }),
    s("ellipse", { cx: x + 22, cy: y + 18, rx: 7, ry: 5, fill: rgb, stroke: outline, "stroke-width": 1.5 }),
    s("ellipse", { cx: x, cy: y, rx: 29, ry: 26, fill: rgb, stroke: outline, "stroke-width": 2 }),
    s("ellipse", { cx: x, cy: y + 8, rx: 17, ry: 12, fill: lighter(rgb, 0.55) }),
    eye(x - 10, y - 6),
    eye(x + 10, y - 6),
    s("path", { d: `M${x - 7} ${y + 6} Q${x} ${y + 13} ${x + 7} ${y + 6}`, fill: "none", stroke: INK, "stroke-width": 2.2, "stroke-linecap": "round" }),
    s("circle", { cx: x - 18, cy: y + 3, r: 3.5, fill: "#F48FB1", opacity: 0.8 }),
    s("circle", { cx: x + 18, cy: y + 3, r: 3.5, fill: "#F48FB1", opacity: 0.8 }),
    legendary
      ? s("path", { d: `M${x - 13} ${y - 22} L${x - 13} ${y - 34} L${x - 6} ${y - 27} L${x} ${y - 37} L${x + 6} ${y - 27} L${x + 13} ${y - 34} L${x + 13} ${y - 22} Z`, fill: GOLD, stroke: darker(GOLD, 0.3), "stroke-width": 1.5, "stroke-linejoin": "round" })
      : null,
  );
}

function eye(x: number, y: number): SVGElement {
  return s("g", {}, s("circle", { cx: x, cy: y, r: 6.5, fill: "#fff", stroke: INK, "stroke-width": 1 }), s("circle", { cx: x + 1, cy: y + 1, r: 3.2, fill: INK }), s("circle", { cx: x + 2.2, cy: y - 0.4, r: 1, fill: "#fff" }));
}

/** The family's emblem, centred on (x, y), about 30 wide. */
export function emblem(family: string, x: number, y: number, rgb: string): SVGElement {
  switch (family) {
    case "FAMILY_SUN": {
      const rays: SvgChild[] = [];
      for (let i = 0; i < 8; i++) {
        const a = (Math.PI * i) / 4;
        rays.push(s("line", { x1: x + 11 * Math.cos(a), y1: y + 11 * Math.sin(a), x2: x + 16 * Math.cos(a), y2: y + 16 * Math.sin(a), stroke: rgb, "stroke-width": 3, "stroke-linecap": "round" }));
      }
      return s("g", {}, ...rays, s("circle", { cx: x, cy: y, r: 8, fill: rgb }));
    }
    case "FAMILY_MOON":
      // The part of a circle (r 13) outside another (r 11, 6 to the right): they cross at x + 7.
      return s("path", { d: `M${x + 7} ${y - 10.95} A13 13 0 1 0 ${x + 7} ${y + 10.95} A11 11 0 1 1 ${x + 7} ${y - 10.95} Z`, fill: rgb });
    case "FAMILY_FOSSIL":
      return s(
        "g",
        { fill: "none", stroke: rgb, "stroke-width": 3, "stroke-linecap": "round" },
        s("path", { d: `M${x} ${y} a3 3 0 0 1 6 0 a6 6 0 0 1 -12 0 a9 9 0 0 1 18 0 a12 12 0 0 1 -24 0` }),
      );
    case "FAMILY_SEASHELL":
      return s(
        "g",
        {},
        s("path", { d: `M${x} ${y + 12} L${x - 14} ${y - 4} A15 15 0 0 1 ${x + 14} ${y - 4} Z`, fill: rgb }),
        ...[-8, -3, 3, 8].map((dx) => s("line", { x1: x, y1: y + 10, x2: x + dx * 1.4, y2: y - 9, stroke: lighter(rgb, 0.6), "stroke-width": 1.6 })),
      );
    case "FAMILY_LEAF":
      return s(
        "g",
        {},
        s("path", { d: `M${x - 13} ${y + 10} C${x - 13} ${y - 8} ${x + 2} ${y - 14} ${x + 14} ${y - 12} C${x + 12} ${y + 2} ${x + 2} ${y + 12} ${x - 13} ${y + 10} Z`, fill: rgb }),
        s("path", { d: `M${x - 11} ${y + 8} L${x + 10} ${y - 8}`, stroke: lighter(rgb, 0.6), "stroke-width": 1.6 }),
      );
    default:
      return s("circle", { cx: x, cy: y, r: 11, fill: rgb });
  }
}

function spiderCard(look: { rgb: string; name: string }): SVGSVGElement {
  const legs: SvgChild[] = [];
  for (const side of [-1, 1]) {
    for (let i = 0; i < 4; i++) {
      const y = 62 + i * 9;
      legs.push(s("path", { d: `M${50 + side * 10} ${y} Q${50 + side * 30} ${y - 16} ${50 + side * 38} ${y + 6 + i * 3}`, fill: "none", stroke: "#101820", "stroke-width": 3.2, "stroke-linecap": "round" }));
    }
  }
  const ink = inkOn(look.rgb);
  return picture(
    "0 0 100 140",
    s("rect", { x: 3, y: 3, width: 94, height: 134, rx: 11, fill: look.rgb, stroke: darker(look.rgb, 0.4), "stroke-width": 3 }),
    s("path", { d: "M50 6 L50 44", stroke: lighter(look.rgb, 0.5), "stroke-width": 1.5 }),
    ...legs,
    s("ellipse", { cx: 50, cy: 80, rx: 15, ry: 18, fill: "#101820" }),
    s("circle", { cx: 50, cy: 56, r: 11, fill: "#101820" }),
    s("circle", { cx: 45.5, cy: 54, r: 4, fill: "#fff" }),
    s("circle", { cx: 54.5, cy: 54, r: 4, fill: "#fff" }),
    s("circle", { cx: 46, cy: 55, r: 1.8, fill: "#101820" }),
    s("circle", { cx: 55, cy: 55, r: 1.8, fill: "#101820" }),
    s("path", { d: "M40 112 Q50 104 60 112", fill: "none", stroke: ink, "stroke-width": 3, "stroke-linecap": "round" }),
  );
}

/** A card whose face the viewer may not see. */
export function cardBack(): SVGSVGElement {
  return picture(
    "0 0 100 140",
    s("rect", { x: 3, y: 3, width: 94, height: 134, rx: 11, fill: "#2f6f4f", stroke: "#1f4d37", "stroke-width": 3 }),
    s("rect", { x: 11, y: 11, width: 78, height: 118, rx: 7, fill: "none", stroke: "#8fd1a9", "stroke-width": 2, "stroke-dasharray": "5 4" }),
    s("circle", { cx: 50, cy: 70, r: 22, fill: "#8fd1a9" }),
    s("text", { x: 50, y: 81, "text-anchor": "middle", "font-size": 32, "font-weight": 800, fill: "#1f4d37" }, "?"),
  );
}

/** A trophy cup in the family's colour, its stars under it (viewBox 80×96). A trophy the
 * Spider ran off with (`gone`) is drawn grey and dashed, the Spider on it, its stars struck out. */
export function trophy(material: Material | undefined, family: number, stars: number, gone = false): SVGSVGElement {
  const look = familyLook(material, family);
  const rgb = gone ? "#cfd8dc" : look.rgb;
  const outline = gone ? "#78909c" : darker(look.rgb, 0.35);
  const dash = gone ? "4 3" : undefined;
  return picture(
    "0 0 80 96",
    s("path", { d: "M22 8 H58 V26 C58 40 48 46 40 46 C32 46 22 40 22 26 Z", fill: rgb, stroke: outline, "stroke-width": 2.5, "stroke-dasharray": dash }),
    s("path", { d: "M22 14 H12 C12 26 18 30 24 30 M58 14 H68 C68 26 62 30 56 30", fill: "none", stroke: outline, "stroke-width": 3, "stroke-dasharray": dash }),
    s("rect", { x: 36, y: 46, width: 8, height: 10, fill: outline }),
    s("rect", { x: 26, y: 56, width: 28, height: 8, rx: 3, fill: outline }),
    emblem(enumName(FamilySchema, family), 40, 25, gone ? "#eceff1" : lighter(look.rgb, 0.7)),
    s("polygon", { points: starPoints(20, 82, 10, 4.5), fill: gone ? "#b0bec5" : GOLD, stroke: gone ? "#78909c" : darker(GOLD, 0.3), "stroke-width": 1 }),
    // 24 units: 13 px on the smallest trophy (44 px).
    s("text", { x: 52, y: 91, "text-anchor": "middle", "font-size": 24, "font-weight": 900, fill: gone ? "#607d8b" : INK }, `×${stars}`),
    gone ? s("path", { d: "M8 94 L74 70", stroke: "#b03a48", "stroke-width": 4, "stroke-linecap": "round" }) : null,
    gone ? spiderBadge(60, 20) : null,
  );
}

/** A little black spider, centred on (x, y). */
function spiderBadge(x: number, y: number): SVGElement {
  const legs: SvgChild[] = [];
  for (const side of [-1, 1]) {
    for (let i = 0; i < 4; i++) {
      legs.push(s("path", { d: `M${x} ${y - 3 + i * 3} q${side * 8} ${-6 + i * 2} ${side * 13} ${-1 + i * 4}`, fill: "none", stroke: "#101820", "stroke-width": 2, "stroke-linecap": "round" }));
    }
  }
  return s("g", {}, ...legs, s("ellipse", { cx: x, cy: y + 2, rx: 7, ry: 8, fill: "#101820" }), s("circle", { cx: x - 2.5, cy: y - 1, r: 1.8, fill: "#fff" }), s("circle", { cx: x + 2.5, cy: y - 1, r: 1.8, fill: "#fff" }));
}
