// The picture on each move's button that the board does not draw as a piece (the bar
// under the prompt: "Keep what you drew and end your turn", "ohé!", higher or lower...),
// so that no button is words alone: a child who cannot read taps the picture. Chosen
// from the choice step's subject and value (the server's, the same in every language);
// a step this file does not know gets a finger tapping. And "Help me"'s light bulb.

import type { Choice } from "@ludotheque/client";

import { picture, s, type SvgChild } from "./svg";

const INK = "currentColor";
const line = (d: string, colour = INK, width = 2.4): SVGElement => s("path", { d, fill: "none", stroke: colour, "stroke-width": width, "stroke-linecap": "round", "stroke-linejoin": "round" });

/** A card with an arrow coming out of the pile: draw. */
const draw = (): SvgChild[] => [s("rect", { x: 5, y: 3, width: 11, height: 15, rx: 2, fill: "#fff", stroke: INK, "stroke-width": 1.8 }), line("M18 8 V20 M14 16 L18 20 L22 16")];
/** A big tick: done, keep it, end the turn. */
const done = (): SvgChild[] => [s("circle", { cx: 12, cy: 12, r: 10, fill: "#2f6f4f" }), line("M7 12.5 L10.5 16 L17 8.5", "#fff", 2.8)];
/** A bin: throw it away. */
const bin = (): SvgChild[] => [line("M5 7 H19 M9 7 V4 H15 V7"), s("path", { d: "M7 7 L8 20 H16 L17 7 Z", fill: "none", stroke: INK, "stroke-width": 2 }), line("M10.5 10 V17 M13.5 10 V17", INK, 1.6)];
/** A hand holding: keep it for later. */
const keep = (): SvgChild[] => [s("rect", { x: 7, y: 3, width: 10, height: 12, rx: 2, fill: "#fff", stroke: INK, "stroke-width": 1.8 }), s("path", { d: "M3 15 Q6 13 9 16 H15 Q17 16 17 18 H10 M17 18 L21 15 Q22 20 16 21 H3 Z", fill: INK })];
/** A speech bubble with "!": a call aloud. */
const call = (): SvgChild[] => [s("path", { d: "M3 5 Q3 3 5 3 H19 Q21 3 21 5 V14 Q21 16 19 16 H10 L5 21 V16 Q3 16 3 14 Z", fill: "#f4b942", stroke: INK, "stroke-width": 1.6 }), line("M12 6 V11", INK, 2.6), s("circle", { cx: 12, cy: 13.6, r: 1.3, fill: INK })];
/** A speech bubble crossed out: no call. */
const quiet = (): SvgChild[] => [s("path", { d: "M3 5 Q3 3 5 3 H19 Q21 3 21 5 V14 Q21 16 19 16 H10 L5 21 V16 Q3 16 3 14 Z", fill: "#fff", stroke: INK, "stroke-width": 1.6 }), line("M8 6.5 L16 12.5 M16 6.5 L8 12.5", "#b03a48", 2.2)];
/** An arrow up or down: higher, lower. */
const arrow = (up: boolean): SvgChild[] => [line(up ? "M12 20 V4 M5 11 L12 4 L19 11" : "M12 4 V20 M5 13 L12 20 L19 13", INK, 3)];
/** A tent; a house. */
const tent = (): SvgChild[] => [s("path", { d: "M2 20 L12 4 L22 20 Z", fill: "#f4a261", stroke: INK, "stroke-width": 1.6 }), s("path", { d: "M12 20 L9 14 H15 Z", fill: INK })];
const house = (): SvgChild[] => [s("path", { d: "M3 11 L12 3 L21 11 V21 H3 Z", fill: "#e9c46a", stroke: INK, "stroke-width": 1.6 }), s("rect", { x: 10, y: 14, width: 5, height: 7, fill: INK })];
/** A path's way: an arrow along it. */
const route = (): SvgChild[] => [line("M3 17 Q10 5 19 9"), line("M15 5 L20 9 L15 13")];
/** A finger tapping: any other move. */
const tap = (): SvgChild[] => [s("circle", { cx: 12, cy: 6, r: 3.5, fill: "none", stroke: INK, "stroke-width": 1.6 }), s("path", { d: "M10.5 7 V15 L8 13 Q6.5 12.5 6.5 14 L10 20 H17 Q18.5 20 18.5 18 V12.5 Q18.5 11 17 11 H13.5 V7 Q13.5 5.5 12 5.5 Q10.5 5.5 10.5 7 Z", fill: "#fff", stroke: INK, "stroke-width": 1.6 })];

const ACTIONS: Record<string, () => SvgChild[]> = {
  draw,
  endTurn: done,
  keepTile: keep,
  discardTile: bin,
  discardTrophy: bin,
};

/** A light bulb, lit: "Help me", a hint. */
export function bulbIcon(): SVGSVGElement {
  return picture(
    "0 0 24 24",
    s("path", { d: "M12 2.5 A6.5 6.5 0 0 0 8 14 Q9 15 9 16.5 H15 Q15 15 16 14 A6.5 6.5 0 0 0 12 2.5 Z", fill: "#f4d35e", stroke: INK, "stroke-width": 1.6 }),
    line("M9.5 19 H14.5 M10.5 21.5 H13.5", INK, 1.8),
    line("M10 9.5 Q12 12 14 9.5", "#b07d12", 1.4),
  );
}

/** The picture of the move `choice` picks (aria-hidden: the button's words name it). */
export function choiceIcon(choice: Pick<Choice, "subject" | "value">): SVGSVGElement {
  return picture("0 0 24 24", ...drawing(choice.subject, choice.value));
}

function drawing(subject: string, value: string): SvgChild[] {
  if (subject === "action") return (ACTIONS[value] ?? tap)();
  if (subject === "call") {
    if (value === "none") return quiet();
    if (value.endsWith("HIGHER")) return arrow(true);
    if (value.endsWith("LOWER")) return arrow(false);
    return call();
  }
  if (subject === "shelter") return value === "tent" ? tent() : house();
  if (subject === "route") return route();
  return tap();
}
