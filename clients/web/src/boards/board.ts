// The board area's boundary: what a renderer is given and what it gives back. One
// renderer per game kind, chosen by `boardFor`; the play page and the debug panel know
// nothing else of it. Today every kind is drawn by the generic renderer (generic.ts:
// the view as labelled lists, each legal move as a button). Phase 2 adds one module per
// game (boards/mooki.ts, pirates.ts, picnic.ts) drawing SVG from GetGameKind's rendering
// facts and offering moves as choice steps, registered in RENDERERS below; it adds the
// facts to BoardInput then.

import type { Command, GameView, Seat } from "@ludotheque/client";

import { genericBoard } from "./generic";

export interface BoardInput {
  /** The game's kind: "mooki", "pirates", "picnic". */
  kind: string;
  /** What the viewer sees (undefined before the first answer). */
  view: GameView | undefined;
  /** The moves the viewer may make now (none for a spectator, or when not their turn). */
  legalCommands: Command[];
  /** The seats, in turn order. */
  seats: Seat[];
  /** The viewer's seat, if a player. */
  viewerSeat?: number;
  /** Plays a move; undefined: the board is read-only (spectator, debug panel). */
  onCommand?: (command: Command) => void;
  /** A move was sent and its result is awaited: offer no other. */
  pending?: boolean;
}

export interface BoardRenderer {
  /** A new element showing `input`. Called again with new input after every change. */
  render(input: BoardInput): HTMLElement;
}

const RENDERERS: Record<string, BoardRenderer> = {};

export function boardFor(kind: string): BoardRenderer {
  return RENDERERS[kind] ?? genericBoard;
}
