// A small helper to build DOM elements without HTML strings (so nothing a player
// typed is ever parsed as HTML) and without inline styles (the page's CSP forbids them).

export type Child = Node | string | number | null | undefined | false;

export interface Props {
  /** Space-separated class names. */
  class?: string;
  /** Attributes, e.g. `{ "aria-label": "...", href: "/" }`; `false`/undefined leave one out. */
  attrs?: Record<string, string | number | boolean | undefined>;
  /** Event listeners, e.g. `{ click: () => ... }`. */
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.class) element.className = props.class;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const [type, listener] of Object.entries(props.on ?? {})) {
    element.addEventListener(type, listener as EventListener);
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** Says `text` to screen readers through the page's polite live region. */
export function announce(text: string): void {
  const region = document.getElementById("announcer");
  if (region === null) return;
  region.textContent = "";
  // A new text node after clearing makes screen readers read a repeated message too.
  requestAnimationFrame(() => {
    region.textContent = text;
  });
}

let nextId = 0;
/** A unique id for label/aria wiring. */
export function uid(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}
