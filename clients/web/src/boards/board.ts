// The board area's boundary: what a renderer is given and what it gives back. One
// renderer per game kind, registered in RENDERERS; the play page (through
// play-board.ts, which adds the choice bar and keeps the keyboard focus) and the debug
// panel know nothing else of it. A kind without a renderer of its own is drawn by the
// generic one (generic.ts: the view as labelled lists, every move in the choice bar).
//
// To draw your own game: write `render(input)` returning an element (SVG inside HTML,
// see mooki.ts), draw every piece from `input.view` and `input.facts` (GetGameKind's
// material: colours, cards, boards), and for each piece that is a choice of the next
// step (`input.offer?.option(subject, value)`) call `input.offer.bind(element, choice)`.
// To show the other players' moves as they come, name the drawing's places and pieces
// (`data-anchor`, `data-piece`: motion.ts) and say what each event moves (`moves`).

import type { Event, GameKind, GameView, Seat } from "@ludotheque/client";

import type { Offer } from "./choices";
import type { Motion } from "./motion";
import { genericBoard } from "./generic";
import { mookiBoard } from "./mooki";
import { picnicBoard } from "./picnic";
import { piratesBoard } from "./pirates";

export interface BoardInput {
  /** The game's kind: "mooki", "pirates", "picnic". */
  kind: string;
  /** GetGameKind's facts about the kind, in the page's language (undefined until loaded). */
  facts: GameKind | undefined;
  /** What the viewer sees (undefined before the first answer). */
  view: GameView | undefined;
  /** The seats, in turn order. */
  seats: readonly Seat[];
  /** The viewer's seat, if a player. */
  viewerSeat?: number;
  /** The next step's options, to offer on the table; undefined when the viewer has no
   * move to make (a spectator, the debug panel, another player's turn). */
  offer?: Offer;
  /** A move was sent and its result is awaited: its pieces are drawn as chosen. */
  pending?: boolean;
  /** A narrow screen held upright: a wide board may be drawn turned a quarter. */
  upright?: boolean;
}

/** What an event does on the board: the pieces it moves, and whether it is one to
 * celebrate (a round won: the ship sails; the game's end). */
export interface EventMoves {
  motions: Motion[];
  celebrate?: "round" | "won" | "lost";
}

export interface BoardRenderer {
  /** A new element showing `input`. Called again with new input after every change. */
  render(input: BoardInput): HTMLElement;
  /** What `event` moves on the board drawn from `input` (none: it shows no move). */
  moves?(event: Event, input: BoardInput): EventMoves;
}

export const RENDERERS: Record<string, BoardRenderer> = {
  mooki: mookiBoard,
  pirates: piratesBoard,
  picnic: picnicBoard,
};

export function boardFor(kind: string): BoardRenderer {
  return RENDERERS[kind] ?? genericBoard;
}
