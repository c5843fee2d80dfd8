// The service, through the TypeScript client (clients/typescript), on the page's own
// origin: no CORS, and the page's CSP allows nothing else. Seat tokens live in this
// browser's localStorage, one list per game, and never in a URL; the admin token, typed
// into the debug panel, in sessionStorage only (gone with the tab).

import { Ludotheque } from "@ludotheque/client";

export const service = new Ludotheque({ baseUrl: location.origin });

/** A seat this browser may play: its token, from CreateGame or ImportGame. */
export interface HeldSeat {
  seat: number;
  name: string;
  token: string;
}

const SEATS_KEY = (gameId: string): string => `ludotheque.seats.${gameId}`;
const ADMIN_KEY = "ludotheque.admin";

export const seats = {
  /** The seats of `gameId` this browser holds, in seat order. */
  held(gameId: string): HeldSeat[] {
    try {
      const stored = JSON.parse(localStorage.getItem(SEATS_KEY(gameId)) ?? "[]") as HeldSeat[];
      return Array.isArray(stored) ? stored : [];
    } catch {
      return [];
    }
  },
  keep(gameId: string, held: HeldSeat[]): void {
    if (held.length > 0) localStorage.setItem(SEATS_KEY(gameId), JSON.stringify(held));
  },
};

export const admin = {
  token(): string {
    return sessionStorage.getItem(ADMIN_KEY) ?? "";
  },
  setToken(token: string): void {
    if (token) sessionStorage.setItem(ADMIN_KEY, token);
    else sessionStorage.removeItem(ADMIN_KEY);
  },
  /** The service as the admin, when a token was given. */
  service(): Ludotheque | undefined {
    const token = this.token();
    return token ? service.withToken(token) : undefined;
  },
};

/** A short sentence for an error of the service (its message, which says what to do). */
export function errorText(reason: unknown): string {
  if (reason instanceof Error) return reason.message.replace(/^\[\w+\]\s*/, "");
  return String(reason);
}
