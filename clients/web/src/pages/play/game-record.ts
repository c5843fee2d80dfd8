// The game as GetGame tells it (its seats, status and clocks) and when that came; asked
// again when the table may have changed (a join, the deal, a turn with a clock), one call at a time.

import { GameStatus, type Game, type GameSnapshot } from "@ludotheque/client";

import { api } from "../../api";

export class GameRecord {
  game: Game | undefined;
  /** When `game` came (Date.now()): its clocks count down from then. */
  receivedAt = 0;
  private refreshedAt = 0n;
  private refreshing = false;
  private again = false;

  constructor(
    private readonly gameId: string,
    /** The token to ask with: the seat shown's, or none. */
    private readonly token: () => string | undefined,
    /** Called when a fresh game came. */
    private readonly changed: () => void,
    /** Whether the page was left (an answer then is dropped). */
    private readonly left: () => boolean,
  ) {}

  /** The first GetGame (its failure is the caller's: the game may not exist). */
  async load(): Promise<Game> {
    const game = await api(this.token()).getGame(this.gameId);
    this.game = game;
    this.receivedAt = Date.now();
    return game;
  }

  /** Asks again if the session's news since the last ask may have changed the table. */
  follow(news: GameSnapshot): void {
    const game = this.game;
    if (game === undefined || news.version === this.refreshedAt) return;
    if (game.status === GameStatus.OPEN || game.clock !== undefined || news.gameOver || hasTableEvent(news, this.refreshedAt)) {
      this.refreshedAt = news.version;
      void this.refresh();
    }
  }

  /** GetGame again (one at a time; news meanwhile asks for one more after). */
  async refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.again = false;
        const fresh = await api(this.token()).getGame(this.gameId);
        if (this.left()) return;
        this.game = fresh;
        this.receivedAt = Date.now();
        this.changed();
      } while (this.again);
    } catch {
      // The session says when the server cannot be reached; the table keeps what it had.
    } finally {
      this.refreshing = false;
    }
  }
}

/** Whether a table event (a join, a leave, a take-over) came after `version`. */
function hasTableEvent(snapshot: GameSnapshot, version: bigint): boolean {
  for (let index = snapshot.events.length - 1; index >= 0 && snapshot.events[index].version > version; index--) {
    if (snapshot.events[index].table) return true;
  }
  return false;
}
