// The play page's Play sessions: one per seat this browser holds, or one as a spectator;
// and what the screen shows: a seat's own view (its hand), or, with several people at one
// screen, the table as nobody's (between their turns), under a curtain "Pass to Papa"
// until the next one taps. No control shows a seat's hand but that seat's own turn. A
// game that hides nothing from a seat (GameKind.seatSecrets false: the picnic) needs no
// curtain: the board goes straight to whoever is to play.

import type { GameSession, GameSnapshot } from "@ludotheque/client";

import { playSession, type HeldSeat } from "../../api";
import { seatCalled } from "../../kinds";

/** What the board shows, and from which session. */
export type Showing =
  /** The seat's own view: its hand, its moves. */
  | { mode: "seat"; seat: HeldSeat; session: GameSession }
  /** Several people at one screen, none of whom is to play: the table as nobody's. */
  | { mode: "table"; session: GameSession }
  /** It is `seat`'s turn: the table as nobody's, under a curtain until `seat` taps. */
  | { mode: "curtain"; seat: HeldSeat; session: GameSession }
  /** No seat held here: watching. */
  | { mode: "spectator"; session: GameSession };

const TABLE = "table";

export class PlaySessions {
  private readonly sessions = new Map<number | typeof TABLE, GameSession>();
  /** The seat that tapped the curtain last (several people at one screen). */
  private unveiled: number | undefined;
  /** Whether a seat sees what the others may not (the kind's seatSecrets): a curtain then. */
  secrets = true;

  constructor(
    private readonly gameId: string,
    /** The seats this browser holds in the game (none: a spectator). */
    held: readonly HeldSeat[],
    /** Called on any change of any session. */
    private readonly changed: () => void,
  ) {
    this.held = held.map((one) => ({ ...one, name: seatCalled(one.name, one.seat) }));
  }

  /** The seats this browser holds in the game, each named (none: a spectator). */
  readonly held: readonly HeldSeat[];

  /** Whether several people play at this screen (the device passes between them). */
  get shared(): boolean {
    return this.held.length > 1;
  }

  /** Opens a session per seat held, and the table's (a spectator's) unless one seat is
   * held; closes any open before. */
  open(): void {
    this.close();
    this.sessions.clear();
    if (this.held.length !== 1) this.sessions.set(TABLE, playSession(this.gameId));
    for (const one of this.held) this.sessions.set(one.seat, playSession(this.gameId, one.token));
    for (const session of this.sessions.values()) session.subscribe(this.changed);
    this.changed();
  }

  close(): void {
    for (const session of this.sessions.values()) session.close();
  }

  /** The session whose events make the log: the one seat's, else the table's (with
   * several people at one screen, the log tells nobody's secrets). */
  primary(): GameSession | undefined {
    return this.sessions.get(this.held.length === 1 ? this.held[0].seat : TABLE);
  }

  /** The token the page reads the game with (none when the log is the table's). */
  get readToken(): string | undefined {
    return this.held.length === 1 ? this.held[0].token : undefined;
  }

  /** What a seat held knows now. */
  snapshotOf(seat: number): GameSnapshot | undefined {
    return this.sessions.get(seat)?.getSnapshot();
  }

  /** What to show now. `busy`: moves are being shown one after another (the table stays
   * in view until they are done, then the curtain comes down for whoever is next). */
  showing(busy: boolean): Showing | undefined {
    const table = this.sessions.get(TABLE);
    if (this.held.length === 0) return table && { mode: "spectator", session: table };
    if (this.held.length === 1) {
      const session = this.sessions.get(this.held[0].seat);
      return session && { mode: "seat", seat: this.held[0], session };
    }
    if (table === undefined) return undefined;
    const toAct = (one: HeldSeat): boolean => {
      const snapshot = this.snapshotOf(one.seat);
      return (snapshot?.legalCommands.length ?? 0) > 0 || (table.getSnapshot().toAct.includes(one.seat) && !table.getSnapshot().gameOver);
    };
    const unveiled = this.held.find((one) => one.seat === this.unveiled);
    if (unveiled && toAct(unveiled) && !busy) return { mode: "seat", seat: unveiled, session: this.sessions.get(unveiled.seat) ?? table };
    const next = this.held.find(toAct);
    if (next && !busy && !this.secrets) return { mode: "seat", seat: next, session: this.sessions.get(next.seat) ?? table };
    if (next && !busy) return { mode: "curtain", seat: next, session: table };
    return { mode: "table", session: table };
  }

  /** The seat behind the curtain taps: its view shows until its turn is over. */
  unveil(seat: number): void {
    this.unveiled = seat;
  }
}
