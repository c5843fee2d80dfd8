// Where a page keeps the seats its player holds, so that a reload (or tomorrow's visit)
// plays the same seat again: a seat token per game. GameSession reads its token from
// one when it is given none, and keeps there the token it is given and its rematch's.

/** A seat token per game id. */
export interface SeatStore {
  /** The token of this game's seat held here, if any. */
  get(gameId: string): string | undefined;
  set(gameId: string, token: string): void;
  delete(gameId: string): void;
}

/** The part of the Web Storage API a SeatStore needs (`localStorage` has it). */
export type SeatStorage = Pick<Storage, "getItem" | "setItem" | "removeItem">;

/** Seats kept in Web Storage under `prefix` + the game id: `storageSeats(localStorage)`
 * outlives the page (every tab of the origin shares it), `sessionStorage` the tab only.
 * Anything with getItem/setItem/removeItem does for a test. A storage that refuses
 * (a private window's quota, a blocked cookie setting) keeps nothing, and says nothing. */
export function storageSeats(storage: SeatStorage, prefix = "ludotheque.seat."): SeatStore {
  return {
    get: (gameId) => attempt(() => storage.getItem(prefix + gameId)) ?? undefined,
    set: (gameId, token) => attempt(() => storage.setItem(prefix + gameId, token)),
    delete: (gameId) => attempt(() => storage.removeItem(prefix + gameId)),
  };
}

/** Seats kept in memory, for as long as the page lives. */
export function memorySeats(): SeatStore {
  const tokens = new Map<string, string>();
  return {
    get: (gameId) => tokens.get(gameId),
    set: (gameId, token) => void tokens.set(gameId, token),
    delete: (gameId) => void tokens.delete(gameId),
  };
}

function attempt<T>(act: () => T): T | undefined {
  try {
    return act();
  } catch {
    return undefined; // Web Storage throws when it is full or forbidden: the seat is not kept
  }
}
