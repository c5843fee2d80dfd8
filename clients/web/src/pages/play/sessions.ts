// The play page's Play sessions: one per seat this browser holds (friends at one screen
// take turns), or one as a spectator; which seat is shown and plays, and the turn passing.

import type { GameSession, GameSnapshot } from "@ludotheque/client";

import { playSession, type HeldSeat } from "../../api";

export class PlaySessions {
  /** The seat shown and played (undefined: a spectator). */
  seat: HeldSeat | undefined;
  private readonly sessions = new Map<number | "spectator", GameSession>();

  constructor(
    private readonly gameId: string,
    /** The seats this browser holds in the game (none: a spectator). */
    readonly held: readonly HeldSeat[],
    /** Called on any change of any session. */
    private readonly changed: () => void,
  ) {
    this.seat = held[0];
  }

  /** Opens a session per seat held (or a spectator's), closing any open before. */
  open(): void {
    this.close();
    this.sessions.clear();
    if (this.held.length === 0) this.sessions.set("spectator", playSession(this.gameId));
    for (const one of this.held) this.sessions.set(one.seat, playSession(this.gameId, one.token));
    for (const session of this.sessions.values()) session.subscribe(this.changed);
    this.changed();
  }

  close(): void {
    for (const session of this.sessions.values()) session.close();
  }

  /** The session whose events make the log: the first seat's, or the spectator's. */
  primary(): GameSession | undefined {
    return this.sessions.get(this.held[0]?.seat ?? "spectator");
  }

  /** The session of the seat shown (the spectator's when no seat is held). */
  playing(): GameSession | undefined {
    return this.seat ? this.sessions.get(this.seat.seat) : this.primary();
  }

  /** What the session of a seat held knows now. */
  snapshotOf(seat: number): GameSnapshot | undefined {
    return this.sessions.get(seat)?.getSnapshot();
  }

  /** Shows and plays the seat held as `seat` (a seat not held changes nothing). */
  choose(seat: number): void {
    this.seat = this.held.find((one) => one.seat === seat) ?? this.seat;
  }

  /** Friends at one screen: when the seat shown has nothing to do, the one that has plays.
   * Returns that seat when the turn passed to it. */
  takeTurns(): HeldSeat | undefined {
    const toPlay = (one: HeldSeat): boolean => (this.snapshotOf(one.seat)?.legalCommands.length ?? 0) > 0;
    if (this.held.length < 2 || (this.seat && toPlay(this.seat))) return undefined;
    const next = this.held.find(toPlay);
    if (next === undefined || next.seat === this.seat?.seat) return undefined;
    this.seat = next;
    return next;
  }
}
