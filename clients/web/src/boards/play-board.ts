// The board on the play page: the kind's renderer (board.ts) fed with the viewer's
// legal moves as choice steps (choices.ts), above it a line saying what to pick and
// the buttons of the options the table does not show (and "choose again"). It stays one element while
// the game goes on, redrawn after each change; the keyboard focus stays on the piece it
// was on, or moves to the first option of the next step, or to the board itself.

import type { Command, GameKind, GameView, Seat } from "@ludotheque/client";

import { h } from "../dom";
import { lookup, t } from "../i18n";
import { boardFor } from "./board";
import { BoardOffer, ChoicePicker, bindChoice, choiceKey, rove } from "./choices";

export interface PlayBoardState {
  kind: string;
  facts: GameKind | undefined;
  view: GameView | undefined;
  seats: readonly Seat[];
  /** The seat this page plays (undefined: a spectator). */
  viewerSeat?: number;
  /** Its legal moves now (empty: not its turn). */
  commands: readonly Command[];
  /** A move was sent and its result is awaited. */
  pending: boolean;
}

export class PlayBoard {
  readonly element: HTMLElement;
  private readonly picker: ChoicePicker;
  private state: PlayBoardState | undefined;
  // The piece last focused in each group, to give the group's Tab stop back to it.
  private readonly remembered = new Map<string, string>();

  constructor(play: (command: Command) => void) {
    this.element = h("div", { class: "play-board", attrs: { tabindex: -1, "data-board-root": "", "aria-label": t("play.board"), role: "region" } });
    this.picker = new ChoicePicker(() => this.draw(), play);
    this.element.addEventListener("focusin", (event) => {
      const target = event.target as Element;
      const group = target.getAttribute("data-group");
      const key = target.getAttribute("data-choice");
      if (group !== null && key !== null) this.remembered.set(group, key);
    });
  }

  update(state: PlayBoardState): void {
    this.state = state;
    const before = this.picker.chosen;
    this.picker.offer(state.commands); // a new turn forgets what was picked, and redraws
    if (this.picker.chosen === before) this.draw();
  }

  /** Forgets what was picked: the move was refused. */
  forget(): void {
    this.picker.forget();
  }

  private draw(): void {
    const state = this.state;
    if (state === undefined) return;
    const active = document.activeElement;
    const hadFocus = active !== null && this.element.contains(active);
    const focusedKey = hadFocus ? active.getAttribute("data-choice") : null;
    const offer = state.viewerSeat !== undefined ? new BoardOffer(this.picker) : undefined;
    const table = boardFor(state.kind).render({
      kind: state.kind,
      facts: state.facts,
      view: state.view,
      seats: state.seats,
      viewerSeat: state.viewerSeat,
      offer,
      pending: state.pending,
    });
    const options = this.picker.options();
    const rest = offer === undefined ? [] : options.filter((choice) => !offer.placed.has(choiceKey(choice)));
    const bar = h("div", { class: "choice-bar" });
    for (const choice of rest) {
      const button = h("button", { class: "move" }, choice.description?.text || choice.value);
      bindChoice(button, choice, "bar", () => this.picker.pick(choice));
      bar.append(button);
    }
    if (this.picker.canGoBack) {
      bar.append(h("button", { class: "secondary back", attrs: { type: "button" }, on: { click: () => this.picker.back() } }, `↩ ${t("board.back")}`));
    }
    this.element.classList.toggle("pending", state.pending);
    this.element.classList.toggle("my-turn", options.length > 0);
    this.element.replaceChildren(h("div", { class: "prompt-line" }, this.prompt(state, options.map((o) => o.subject)), bar), table);
    rove(this.element, this.remembered);
    if (hadFocus) {
      const again = focusedKey === null ? null : this.element.querySelector<HTMLElement>(`[data-choice="${CSS.escape(focusedKey)}"]`);
      const next = again ?? this.element.querySelector<HTMLElement>('[data-choice][tabindex="0"]') ?? this.element;
      next.focus();
    }
  }

  /** What to do now, in words: "Pick a pile to draw from", "Which colour?"... */
  private prompt(state: PlayBoardState, subjects: string[]): HTMLElement {
    const chosen = this.picker.chosen.map((choice) => choice.description?.text).filter(Boolean);
    let text = "";
    if (state.pending) text = t("board.sending");
    else if (subjects.length > 0) {
      const subject = subjects.find((s) => s !== "action") ?? subjects[0];
      text = lookup(`prompt.${state.kind}.${subject}`) ?? lookup(`prompt.${subject}`) ?? t("prompt.any");
    }
    return h(
      "p",
      { class: "prompt", attrs: { "data-prompt": text ? "" : undefined } },
      chosen.length > 0 ? h("span", { class: "chosen-steps" }, chosen.join(" › "), " ") : null,
      text,
    );
  }
}
