// The board on the play page: the kind's renderer (board.ts) fed with the viewer's
// legal moves as choice steps (choices.ts), above it a line saying what to pick and
// the buttons of the options the table does not show (and "choose again"). It stays one
// element while the game goes on, redrawn after each change (only then); the keyboard
// focus stays on the piece it was on, or moves to the first option of the next step, or
// to the board itself. Between two versions, the pieces the events moved travel
// (motion.ts); while another player's move is shown, the line says whose, and a tap
// anywhere on the board skips to the present. On the viewer's turn, "Help me" asks for a
// hint (the page's `help`): the hinted move's next step is lit on the board (or in the bar)
// and its reason written beside the prompt, until the game moves on.

import type { Choice, Command, Event, GameKind, GameView, Seat } from "@ludotheque/client";

import { h } from "../dom";
import { lookup, t } from "../i18n";
import { bulbIcon, choiceIcon } from "./action-icons";
import { boardFor, type BoardInput } from "./board";
import { BoardOffer, ChoicePicker, bindChoice, choiceKey, rove } from "./choices";
import { animate, places, type Motion } from "./motion";

export interface PlayBoardState {
  kind: string;
  facts: GameKind | undefined;
  view: GameView | undefined;
  seats: readonly Seat[];
  /** The seat this page plays (undefined: a spectator, or the table between two people). */
  viewerSeat?: number;
  /** Its legal moves now (empty: not its turn, or a past move being shown). */
  commands: readonly Command[];
  /** A move was sent and its result is awaited. */
  pending: boolean;
  /** The version drawn, and the events up to it: those not drawn yet move their pieces. */
  version: bigint;
  events: readonly Event[];
  /** Another player's move being shown (its events), with a way to skip to the present. */
  beat?: readonly Event[];
  /** Moves are shown at all (else the board jumps from version to version). */
  moving: boolean;
}

/** A hint shown on the board: the move suggested at `version` (GetHint), and why. */
export interface BoardHint {
  version: bigint;
  seat: number;
  command: Command;
  reason: string;
}

// Phones hold the picnic's forest upright (renderers read it when they draw).
const UPRIGHT = "(max-width: 700px)";

export class PlayBoard {
  readonly element: HTMLElement;
  private readonly picker: ChoicePicker;
  private state: PlayBoardState | undefined;
  private drawnVersion: bigint | undefined;
  private drawnViewer: number | undefined;
  // The piece last focused in each group, to give the group's Tab stop back to it.
  private readonly remembered = new Map<string, string>();
  private hinted: BoardHint | undefined;

  /** `play` sends a move; `skip` shows the present at once (a tap during another's move);
   * `cheer` is told a round won as it shows (the page's sound); `tell` each prompt drawn
   * while the viewer has a move to make (the page reads it aloud); `help` asks for a hint
   * (none: no "Help me" button). */
  constructor(
    play: (command: Command) => void,
    private readonly skip: () => void,
    private readonly cheer: (what: "round") => void,
    private readonly tell: (prompt: string) => void = () => undefined,
    private readonly help?: () => void,
  ) {
    this.element = h("div", { class: "play-board", attrs: { tabindex: -1, "data-board-root": "", "aria-label": t("play.board"), role: "region" } });
    this.picker = new ChoicePicker(() => this.draw(), play);
    this.element.addEventListener("focusin", (event) => {
      const target = event.target as Element;
      const group = target.getAttribute("data-group");
      const key = target.getAttribute("data-choice");
      if (group !== null && key !== null) this.remembered.set(group, key);
    });
    this.element.addEventListener("click", () => {
      if (this.state?.beat) this.skip();
    });
    window.matchMedia(UPRIGHT).addEventListener("change", () => this.draw());
  }

  update(state: PlayBoardState): void {
    const before = this.state;
    this.state = state;
    const same =
      before !== undefined &&
      before.view === state.view &&
      before.version === state.version &&
      before.facts === state.facts &&
      before.viewerSeat === state.viewerSeat &&
      before.pending === state.pending &&
      before.seats === state.seats &&
      before.beat === state.beat &&
      before.commands.length === state.commands.length;
    const chosen = this.picker.chosen;
    this.picker.offer(state.commands); // a new turn forgets what was picked, and redraws
    if (this.picker.chosen === chosen && !same) this.draw();
  }

  /** Draws nothing (the curtain is down): no seat's pieces stay in the page. */
  clear(): void {
    this.element.replaceChildren();
    this.state = undefined;
    this.drawnVersion = undefined;
  }

  /** Lights the hinted move (undefined: none), while the board is at its version. */
  hint(hint: BoardHint | undefined): void {
    this.hinted = hint;
    this.draw();
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
    const offer = state.viewerSeat !== undefined && !state.beat ? new BoardOffer(this.picker) : undefined;
    const input: BoardInput = {
      kind: state.kind,
      facts: state.facts,
      view: state.view,
      seats: state.seats,
      viewerSeat: state.viewerSeat,
      offer,
      pending: state.pending,
      upright: window.matchMedia(UPRIGHT).matches,
    };
    const renderer = boardFor(state.kind);
    const table = renderer.render(input);
    const options = offer ? this.picker.options() : [];
    const rest = offer === undefined ? [] : options.filter((choice) => !offer.placed.has(choiceKey(choice)));
    const bar = h("div", { class: "choice-bar" });
    for (const choice of rest) {
      // Never words alone: the move's picture, then its words.
      const button = h("button", { class: "move" }, h("span", { class: "button-picture", attrs: { "aria-hidden": "true" } }, choiceIcon(choice)), h("span", {}, choice.description?.text || choice.value));
      bindChoice(button, choice, "bar", () => this.picker.pick(choice));
      bar.append(button);
    }
    if (offer && this.picker.canGoBack) {
      bar.append(
        h(
          "button",
          // Named by the words it shows ("Choose again", on a phone "Back").
          { class: "secondary back", attrs: { type: "button" }, on: { click: () => this.picker.back() } },
          h("span", { class: "button-picture", attrs: { "aria-hidden": "true" } }, "↩"),
          h("span", { class: "wide-only" }, t("board.back")),
          h("span", { class: "narrow-only" }, t("board.backShort")),
        ),
      );
    }
    const hint = offer && options.length > 0 && this.hinted?.version === state.version && this.hinted.seat === state.viewerSeat ? this.hinted : undefined;
    // Help at a move's first step (a hint then lights each of its steps): never beside "Choose again".
    if (offer && options.length > 0 && !state.pending && this.help && !this.picker.canGoBack) bar.append(this.helpButton());
    if (state.beat) {
      bar.append(h("button", { class: "secondary skip", attrs: { type: "button" } }, h("span", { class: "button-picture", attrs: { "aria-hidden": "true" } }, "»"), t("board.skip")));
    }
    // What moves: the events since the version drawn (the same viewer's board only).
    const fresh = state.moving && this.drawnViewer === state.viewerSeat && this.drawnVersion !== undefined ? state.events.filter((event) => event.version > (this.drawnVersion ?? 0n)) : [];
    const moves = fresh.map((event) => ({ event, ...(renderer.moves?.(event, input) ?? { motions: [] }) }));
    const motions: Motion[] = moves.flatMap((move) => move.motions);
    const round = moves.find((move) => move.celebrate === "round")?.event;
    const before = motions.length > 0 || fresh.length > 0 ? places(this.element) : new Map<string, DOMRect>();
    this.drawnVersion = state.version;
    this.drawnViewer = state.viewerSeat;
    this.element.classList.toggle("pending", state.pending);
    this.element.classList.toggle("my-turn", options.length > 0);
    this.element.classList.toggle("showing-move", Boolean(state.beat));
    this.element.dataset["version"] = String(state.version);
    const reason = hint ? h("p", { class: "hint-reason", attrs: { role: "status", "data-hint": "" } }, h("span", { class: "hint-for" }, t("board.hintFor")), " ", hint.reason) : null;
    this.element.replaceChildren(h("div", { class: "prompt-line" }, this.prompt(state, options), bar, reason), table);
    if (hint) light(this.element, hintedStep(hint.command, this.picker.chosen));
    if (!state.beat && !state.pending && options.length > 0) this.tell(promptText(state.kind, options));
    rove(this.element, this.remembered);
    if (fresh.length > 0) animate(this.element, before, motions);
    if (round) {
      // A round won: said big over the board while the ship sails.
      this.element.append(h("p", { class: "celebration", attrs: { "aria-hidden": "true" } }, round.description?.text ?? ""));
      this.cheer("round");
    }
    if (state.beat) {
      const detail = { version: String(state.version), events: state.beat.map((event) => ({ version: String(event.version), seat: event.seat ?? null, kind: event.game.value?.kind.case ?? "table" })), motions: motions.map((m) => m.kind) };
      this.element.dispatchEvent(new CustomEvent("ludotheque:beat", { bubbles: true, detail }));
    }
    if (hadFocus) {
      const again = focusedKey === null ? null : this.element.querySelector<HTMLElement>(`[data-choice="${CSS.escape(focusedKey)}"]`);
      const next = again ?? this.element.querySelector<HTMLElement>('[data-choice][tabindex="0"]') ?? this.element;
      next.focus({ preventScroll: true });
    }
  }

  /** "Help me": asks the page for a hint (a light bulb, then the words but on a phone). */
  private helpButton(): HTMLElement {
    const help = this.help;
    return h(
      "button",
      // Named "Help me" always; on a phone the light bulb alone shows, leaving the board its room.
      { class: "secondary help", attrs: { type: "button", title: t("board.helpAbout"), "aria-label": t("board.help"), "data-help": "" }, on: { click: () => help?.() } },
      h("span", { class: "button-picture", attrs: { "aria-hidden": "true" } }, bulbIcon()),
      h("span", { class: "wide-only", attrs: { "aria-hidden": "true" } }, t("board.help")),
    );
  }

  /** What to do now, in words: "Pick a pile to draw from", "Which colour?"..., or whose
   * move is being shown ("Robot 2 lays Flower 7."). */
  private prompt(state: PlayBoardState, options: readonly Choice[]): HTMLElement {
    if (state.beat) {
      const words = state.beat.map((event) => event.description?.text).filter(Boolean).join(" ");
      return h("p", { class: "prompt beat-caption", attrs: { "data-prompt": "", "aria-hidden": "true" } }, words);
    }
    const chosen = this.picker.chosen.map((choice) => choice.description?.text).filter(Boolean);
    let text = "";
    if (state.pending) text = t("board.sending");
    else if (options.length > 0) text = promptText(state.kind, options);
    return h(
      "p",
      { class: "prompt", attrs: { "data-prompt": text ? "" : undefined } },
      chosen.length > 0 ? h("span", { class: "chosen-steps" }, chosen.join(" › "), " ") : null,
      text,
    );
  }
}

/** What to pick, for the options offered ("Pick a pile to draw a card from."): an action
 * that has words of its own first (ending a turn says how), else by their subject. */
function promptText(kind: string, options: readonly Choice[]): string {
  for (const option of options) {
    const own = option.subject === "action" ? lookup(`prompt.${kind}.${option.value}`) : undefined;
    if (own) return own;
  }
  const subjects = options.map((o) => o.subject);
  const subject = subjects.find((s) => s !== "action") ?? subjects[0];
  return lookup(`prompt.${kind}.${subject}`) ?? lookup(`prompt.${subject}`) ?? t("prompt.any");
}

/** The hinted move's step to pick next, when the steps picked so far are its own. */
function hintedStep(command: Command, chosen: readonly Choice[]): Choice | undefined {
  const steps = command.choices;
  const onIt = chosen.every((step, index) => steps[index]?.subject === step.subject && steps[index]?.value === step.value);
  return onIt ? steps[chosen.length] : undefined;
}

/** Marks the pieces and buttons that pick `step` as hinted (they glow). */
function light(root: HTMLElement, step: Choice | undefined): void {
  if (step === undefined) return;
  for (const element of root.querySelectorAll(`[data-choice="${CSS.escape(choiceKey(step))}"]`)) element.classList.add("hinted");
}
