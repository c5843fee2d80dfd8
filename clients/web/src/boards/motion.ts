// Pieces moving between two drawings of a board: a card travels from a pile to a hand, a
// ship sails, Facteur Souris walks his path, a tile turns over. A renderer names the
// places and pieces of its drawing (`data-anchor`: "pile:0", "discard", "cell:23"...; a
// piece that keeps its name from one drawing to the next also has `data-piece`, and
// moves by itself when its place changes) and says, for each event, what moves
// (BoardRenderer.motions). Nothing here knows a game.
//
// The Web Animations API moves the new drawing's elements from where the old one had
// them to where they are (no style attribute is written: the page's CSP allows none).
// Under prefers-reduced-motion nothing moves: what moved is outlined instead.

/** What an event moves on the board. */
export type Motion =
  /** The element(s) named `to` come from where `from` was (`to` ending in "*": every
   * element whose name begins so). */
  | { kind: "travel"; from: string; to: string }
  /** The piece steps through the places `through` to where it stands. */
  | { kind: "walk"; piece: string; through: string[] }
  /** The element turns over (a tile, a card face). */
  | { kind: "turn"; piece: string }
  /** The element jumps to the eye (a night falls, a trophy is lost). */
  | { kind: "pop"; piece: string };

export type Places = Map<string, DOMRect>;

const STEP_MS = 230;
const TRAVEL_MS = 480;

/** Where every named place and piece of `root` is now. */
export function places(root: Element): Places {
  const found: Places = new Map();
  for (const element of root.querySelectorAll("[data-anchor]")) {
    const name = element.getAttribute("data-anchor") ?? "";
    const rect = element.getBoundingClientRect();
    // A place folded away (a closed lid) is not on the screen: what holds it stands in.
    if (!found.has(name) && (rect.width > 0 || rect.height > 0)) found.set(name, rect);
  }
  return found;
}

export function reducedMotion(): boolean {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Plays `motions` on `root`, drawn anew since `before`; returns how long they take (ms). */
export function animate(root: Element, before: Places, motions: readonly Motion[]): number {
  const reduced = reducedMotion();
  const moved = new Set<Element>();
  let longest = 0;
  const mark = (element: Element): void => {
    moved.add(element);
    if (reduced) element.classList.add("moved");
  };
  for (const motion of motions) {
    if (motion.kind === "travel") {
      const from = before.get(motion.from) ?? before.get(motion.from.split(":")[0]) ?? rectOf(root, motion.from);
      for (const element of named(root, motion.to)) {
        mark(element);
        if (!reduced && from) longest = Math.max(longest, travel(element, from));
      }
    } else if (motion.kind === "walk") {
      for (const element of named(root, motion.piece)) {
        mark(element);
        const steps = motion.through.map((place) => rectOf(root, place)).filter((rect): rect is DOMRect => rect !== undefined);
        if (!reduced) longest = Math.max(longest, walk(element, steps));
      }
    } else {
      for (const element of named(root, motion.piece)) {
        mark(element);
        if (!reduced) longest = Math.max(longest, motion.kind === "turn" ? turn(element) : pop(element));
      }
    }
  }
  // A piece that kept its name moves from its old place by itself.
  for (const element of root.querySelectorAll("[data-piece]")) {
    if (moved.has(element)) continue;
    const was = before.get(element.getAttribute("data-anchor") ?? "");
    const now = element.getBoundingClientRect();
    if (was === undefined || (Math.abs(centre(was)[0] - centre(now)[0]) < 2 && Math.abs(centre(was)[1] - centre(now)[1]) < 2)) continue;
    mark(element);
    if (!reduced) longest = Math.max(longest, travel(element, was));
  }
  return reduced ? (moved.size > 0 ? TRAVEL_MS : 0) : longest;
}

/** The elements named `name` ("card:*": every name beginning "card:"). */
function named(root: Element, name: string): Element[] {
  if (name.endsWith("*")) return [...root.querySelectorAll(`[data-anchor^="${CSS.escape(name.slice(0, -1))}"]`)];
  return [...root.querySelectorAll(`[data-anchor="${CSS.escape(name)}"]`)];
}

function rectOf(root: Element, name: string): DOMRect | undefined {
  return root.querySelector(`[data-anchor="${CSS.escape(name)}"]`)?.getBoundingClientRect();
}

function centre(rect: DOMRect): [number, number] {
  return [rect.left + rect.width / 2, rect.top + rect.height / 2];
}

/** A screen offset as the element's own units (an SVG piece moves in its drawing's units). */
function offset(element: Element, dx: number, dy: number): [number, number] {
  if (element instanceof SVGGraphicsElement && !(element instanceof SVGSVGElement)) {
    const matrix = (element.parentNode as SVGGraphicsElement | null)?.getScreenCTM?.();
    if (matrix && matrix.a !== 0 && matrix.d !== 0) return [dx / matrix.a, dy / matrix.d];
  }
  return [dx, dy];
}

function travel(element: Element, from: DOMRect): number {
  const now = element.getBoundingClientRect();
  const [fx, fy] = centre(from);
  const [nx, ny] = centre(now);
  const [dx, dy] = offset(element, fx - nx, fy - ny);
  const html = !(element instanceof SVGElement);
  const scale = html && now.width > 0 ? Math.max(0.4, Math.min(2.5, from.width / now.width)) : 1;
  element.animate(
    [
      { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, zIndex: 5 },
      { transform: "translate(0, 0) scale(1)", zIndex: 5 },
    ],
    { duration: TRAVEL_MS, easing: "cubic-bezier(.3,.7,.4,1)" },
  );
  return TRAVEL_MS;
}

function walk(element: Element, steps: DOMRect[]): number {
  if (steps.length === 0) return 0;
  const [nx, ny] = centre(element.getBoundingClientRect());
  const frames = steps.map((rect) => {
    const [x, y] = centre(rect);
    const [dx, dy] = offset(element, x - nx, y - ny);
    return { transform: `translate(${dx}px, ${dy}px)` };
  });
  const duration = STEP_MS * steps.length;
  element.animate([...frames, { transform: "translate(0, 0)" }], { duration, easing: "linear" });
  return duration;
}

function turn(element: Element): number {
  element.animate([{ transform: "perspective(400px) rotateY(90deg)" }, { transform: "perspective(400px) rotateY(0deg)" }], { duration: TRAVEL_MS, easing: "ease-out" });
  return TRAVEL_MS;
}

function pop(element: Element): number {
  element.animate([{ transform: "scale(1)" }, { transform: "scale(1.3)" }, { transform: "scale(1)" }], { duration: TRAVEL_MS, easing: "ease-in-out" });
  return TRAVEL_MS;
}
