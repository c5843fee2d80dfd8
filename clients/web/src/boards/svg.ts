// SVG without markup strings: elements made with createElementNS, painted with
// presentation attributes (fill="#F2B705"), never a `style` attribute (the page's CSP
// forbids inline styles, not attributes). Colours come from GetGameKind's facts; the
// few helpers here mix them into lighter and darker shades.

const NS = "http://www.w3.org/2000/svg";

export type SvgChild = SVGElement | string | number | null | undefined | false;
export type SvgAttrs = Record<string, string | number | undefined | false>;

export function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: SvgAttrs = {}, ...children: SvgChild[]): SVGElementTagNameMap[K] {
  const element = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof SVGElement ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** A drawing that only illustrates (its words are on the element around it). */
export function picture(viewBox: string, ...children: SvgChild[]): SVGSVGElement {
  return s("svg", { viewBox, "aria-hidden": "true", focusable: "false", class: "art" }, ...children);
}

/** "#RRGGBB" as its channels; a colour the facts left empty reads as grey. */
function channels(hex: string): [number, number, number] {
  const match = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  const value = match ? parseInt(match[1], 16) : 0x9e9e9e;
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

/** `hex` moved towards `other` by `amount` (0: `hex`, 1: `other`). */
export function mix(hex: string, other: string, amount: number): string {
  const a = channels(hex);
  const b = channels(other);
  return `#${a.map((c, i) => Math.round(c + (b[i] - c) * amount).toString(16).padStart(2, "0")).join("")}`;
}

export const lighter = (hex: string, amount = 0.75): string => mix(hex, "#ffffff", amount);
export const darker = (hex: string, amount = 0.35): string => mix(hex, "#000000", amount);

/** Dark ink or white, whichever reads better on `hex`. */
export function inkOn(hex: string): string {
  const [r, g, b] = channels(hex).map((c) => {
    const x = c / 255;
    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luminance > 0.22 ? "#1f2a24" : "#ffffff";
}

/** The points of a star centred on (x, y). */
export function starPoints(x: number, y: number, outer: number, inner: number, points = 5): string {
  const corners: string[] = [];
  for (let i = 0; i < points * 2; i++) {
    const radius = i % 2 === 0 ? outer : inner;
    const angle = (Math.PI * i) / points - Math.PI / 2;
    corners.push(`${(x + radius * Math.cos(angle)).toFixed(2)},${(y + radius * Math.sin(angle)).toFixed(2)}`);
  }
  return corners.join(" ");
}
