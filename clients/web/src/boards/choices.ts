// Moves offered as choices on the board, from each legal command's choice steps
// (Command.choices, docs/DESCRIPTIONS.md "Choices"): the distinct first steps are
// offered (a card, a pile, a friend...), then, once one is picked, the next steps of
// the commands that share it (a colour, a space...), until one command is left: that
// one is played. A step whose only option is left is taken at once, unless it would
// play the move (a move is always the player's own click).
//
// A renderer draws the table and makes some of its pieces the way to pick an option
// (`Offer.bind`); every option it does not place on the table goes in a bar of buttons
// under the board, so each one can always be reached. Keyboard: each group of options
// (the hand, the piles, the spaces) is one Tab stop; the arrow keys move within it by
// where the pieces lie on the screen; Enter or Space picks.

import { ChoiceRole, type Choice, type Command } from "@ludotheque/client";

import { h } from "../dom";

/** The (subject, value) of a step, e.g. "pile:0", "card:CARD_KIND_PARROT". */
export function choiceKey(choice: Pick<Choice, "subject" | "value">): string {
  return `${choice.subject}:${choice.value}`;
}

function same(a: Choice | undefined, b: Choice): boolean {
  return a !== undefined && a.subject === b.subject && a.value === b.value;
}

/** A command's steps; a command a server sent without any is one button of its own. */
function stepsOf(command: Command, index: number): Choice[] {
  if (command.choices.length > 0) return command.choices;
  return [{ role: ChoiceRole.ACTION, subject: "move", value: String(index), description: command.description } as Choice];
}

/** What the player picked so far among one turn's legal commands, and what is left. */
export class ChoicePicker {
  private commands: readonly Command[] = [];
  private steps: Choice[][] = [];
  private picked: Choice[] = [];
  private auto: boolean[] = [];
  private sent = false;

  constructor(
    private readonly changed: () => void,
    private readonly play: (command: Command) => void,
  ) {}

  /** The legal moves now. A new list (a new turn) forgets what was picked. */
  offer(commands: readonly Command[]): void {
    if (commands === this.commands) return;
    this.commands = commands;
    this.steps = commands.map(stepsOf);
    this.forget();
  }

  /** Forgets what was picked (a move refused, a new turn). */
  forget(): void {
    this.picked = [];
    this.auto = [];
    this.sent = false;
    this.settle();
  }

  /** The steps picked so far (of the move sent, while it is pending). */
  get chosen(): readonly Choice[] {
    return this.picked;
  }

  /** Whether a step the player picked can be taken back. */
  get canGoBack(): boolean {
    return !this.sent && this.auto.some((auto) => !auto);
  }

  /** The options of the next step, each once, in the server's order. */
  options(): Choice[] {
    if (this.sent) return [];
    const depth = this.picked.length;
    const found = new Map<string, Choice>();
    for (const steps of this.matching()) {
      const next = steps[depth];
      if (next !== undefined && !found.has(choiceKey(next))) found.set(choiceKey(next), next);
    }
    return [...found.values()];
  }

  /** The move the steps picked so far lead to, when only one is left. */
  leadsTo(): Command | undefined {
    const left = this.commands.filter((_, index) => this.begins(this.steps[index]));
    return left.length === 1 ? left[0] : undefined;
  }

  pick(choice: Choice): void {
    if (this.sent || !this.options().some((option) => same(option, choice))) return;
    this.picked.push(choice);
    this.auto.push(false);
    this.settle();
  }

  /** Takes back the last step the player picked (and those taken for them after it). */
  back(): void {
    if (!this.canGoBack) return;
    while (this.auto.at(-1) === true) this.pop();
    this.pop();
    this.changed();
  }

  private pop(): void {
    this.picked.pop();
    this.auto.pop();
  }

  private begins(steps: Choice[]): boolean {
    return this.picked.every((step, index) => same(steps[index], step));
  }

  private matching(): Choice[][] {
    return this.steps.filter((steps) => this.begins(steps));
  }

  private settle(): void {
    for (;;) {
      const depth = this.picked.length;
      const index = this.steps.findIndex((steps) => steps.length === depth && this.begins(steps));
      if (depth > 0 && index >= 0) {
        this.sent = true;
        this.changed();
        this.play(this.commands[index]);
        return;
      }
      const options = this.options();
      const onlyOne = options.length === 1 && this.matching().every((steps) => steps.length > depth + 1);
      if (!onlyOne) break;
      this.picked.push(options[0]);
      this.auto.push(true);
    }
    this.changed();
  }
}

/** What a renderer is given to offer the next step on its table. */
export interface Offer {
  /** The next step's option for this piece, if it is offered now. */
  option(subject: string, value: string): Choice | undefined;
  /** The next step's options about `subject` (e.g. every "cell"). */
  options(subject: string): Choice[];
  /** The step picked already for `subject` (its value), if any: draw it as chosen. */
  chosen(subject: string): string | undefined;
  /** Makes `element` pick `choice`: a button named by the choice's words, clicked or
   * pressed with Enter or Space; the arrow keys move among the pieces of its `group`
   * (default: its subject). An SVG piece should hold a `.ring` shape, drawn when focused. */
  bind(element: Element, choice: Choice, group?: string): void;
}

/** One drawing's offer: it records which options the renderer placed on the table. */
export class BoardOffer implements Offer {
  readonly placed = new Set<string>();

  constructor(private readonly picker: ChoicePicker) {}

  option(subject: string, value: string): Choice | undefined {
    return this.picker.options().find((choice) => choice.subject === subject && choice.value === value);
  }

  options(subject: string): Choice[] {
    return this.picker.options().filter((choice) => choice.subject === subject);
  }

  chosen(subject: string): string | undefined {
    return this.picker.chosen.find((choice) => choice.subject === subject)?.value;
  }

  bind(element: Element, choice: Choice, group = choice.subject): void {
    const key = choiceKey(choice);
    this.placed.add(key);
    bindChoice(element, choice, group, () => this.picker.pick(choice));
  }
}

/** Makes `element` a button that calls `activate` (see Offer.bind). */
export function bindChoice(element: Element, choice: Choice, group: string, activate: () => void): void {
  const words = choice.description?.text || choice.value;
  if (element instanceof HTMLButtonElement) {
    // A button is named by its content: the words, for screen readers (the picture in it
    // is aria-hidden), unless it shows them already.
    element.type = "button";
    const shown = [...element.childNodes].filter((node) => !(node instanceof SVGElement)).map((node) => node.textContent).join("");
    if (!shown.includes(words)) element.append(h("span", { class: "visually-hidden" }, words));
  } else {
    element.setAttribute("role", "button");
    element.setAttribute("aria-label", words);
  }
  element.setAttribute("tabindex", "0");
  element.setAttribute("data-choice", choiceKey(choice));
  element.setAttribute("data-group", group);
  element.classList.add("choice");
  element.addEventListener("click", (event) => {
    event.preventDefault();
    activate();
  });
  element.addEventListener("keydown", (event) => {
    const key = (event as KeyboardEvent).key;
    if ((key === "Enter" || key === " ") && !(element instanceof HTMLButtonElement)) {
      event.preventDefault();
      activate();
    } else if (moveFocus(element, key)) {
      event.preventDefault();
    }
  });
}

const ARROWS: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/** Arrow keys, Home and End among the pieces of one group; true when handled. */
function moveFocus(from: Element, key: string): boolean {
  const group = from.getAttribute("data-group");
  const root = from.closest("[data-board-root]");
  if (group === null || root === null) return false;
  const members = [...root.querySelectorAll<HTMLElement | SVGElement>(`[data-group="${CSS.escape(group)}"]`)];
  let target: Element | undefined;
  if (key === "Home") target = members[0];
  else if (key === "End") target = members.at(-1);
  else if (key in ARROWS) target = nearest(from, members, ARROWS[key]);
  else return false;
  if (target !== undefined && target !== from) focusInGroup(target as HTMLElement | SVGElement);
  return true;
}

function centre(element: Element): [number, number] {
  const box = element.getBoundingClientRect();
  return [box.left + box.width / 2, box.top + box.height / 2];
}

/** The member nearest to `from` in direction (dx, dy): along it first, across it second. */
function nearest(from: Element, members: Element[], [dx, dy]: [number, number]): Element | undefined {
  const [x, y] = centre(from);
  let best: Element | undefined;
  let bestScore = Infinity;
  for (const member of members) {
    if (member === from) continue;
    const [mx, my] = centre(member);
    const along = (mx - x) * dx + (my - y) * dy;
    if (along <= 1) continue;
    const across = Math.abs((mx - x) * dy) + Math.abs((my - y) * dx);
    const score = along + 2.5 * across;
    if (score < bestScore) {
      bestScore = score;
      best = member;
    }
  }
  return best;
}

/** Focuses `element`, making it its group's one Tab stop. */
export function focusInGroup(element: HTMLElement | SVGElement): void {
  const group = element.getAttribute("data-group");
  const root = element.closest("[data-board-root]");
  if (group !== null && root !== null) {
    for (const member of root.querySelectorAll(`[data-group="${CSS.escape(group)}"]`)) member.setAttribute("tabindex", "-1");
  }
  element.setAttribute("tabindex", "0");
  element.focus();
}

/** Leaves one Tab stop per group: the piece `remembered` names if it is there, else the first. */
export function rove(root: Element, remembered: Map<string, string>): void {
  const groups = new Map<string, Element[]>();
  for (const element of root.querySelectorAll("[data-group]")) {
    const group = element.getAttribute("data-group") ?? "";
    groups.set(group, [...(groups.get(group) ?? []), element]);
  }
  for (const [group, members] of groups) {
    if (members.length < 2) continue;
    const keep = members.find((m) => m.getAttribute("data-choice") === remembered.get(group)) ?? members[0];
    for (const member of members) member.setAttribute("tabindex", member === keep ? "0" : "-1");
  }
}
