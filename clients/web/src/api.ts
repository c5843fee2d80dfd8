// The service, through the TypeScript client (clients/typescript), on the page's own
// origin: no CORS, and the page's CSP allows nothing else. Every call asks for the
// page's language (descriptions of moves and events, error messages). Seat tokens live
// in this browser's localStorage, one list per game, and never in a URL; the admin
// token, typed into the debug panel, in sessionStorage only (gone with the tab). The
// highest version of each game this browser was given goes with every call about it
// (`known`): kept in localStorage for the games it holds a seat of, so that a server
// whose store lost moves shown here records the loss, even after a reload.

import { ConnectError, GameSession, type KnownVersions, Ludotheque } from "@ludotheque/client";
import { LocalizedMessageSchema } from "@ludotheque/client/gen/google/rpc/error_details_pb";

import { locale } from "./i18n";

const KNOWN_KEY = (gameId: string): string => `ludotheque.known.${gameId}`;
const seen = new Map<string, bigint>();

/** The highest version of each game given to this page: in memory, and in localStorage
 * for a game this browser holds a seat or the host token of (a spectator's is not
 * believed by the service: no need to keep it). */
export const known: KnownVersions = {
  get(gameId: string): bigint {
    let stored = 0n;
    try {
      stored = BigInt(localStorage.getItem(KNOWN_KEY(gameId)) ?? "0");
    } catch {
      stored = 0n; // not a number: as if nothing were known
    }
    const here = seen.get(gameId) ?? 0n;
    return here > stored ? here : stored;
  },
  saw(gameId: string, version: bigint): void {
    if (version <= (seen.get(gameId) ?? 0n)) return;
    seen.set(gameId, version);
    if (seats.held(gameId).length > 0 || hosts.token(gameId)) localStorage.setItem(KNOWN_KEY(gameId), version.toString());
  },
};

const base = new Ludotheque({ baseUrl: location.origin, known });
let current: { locale: string; service: Ludotheque } | undefined;

/** The service in the page's language, as a spectator or as the holder of `token`. */
export function api(token?: string): Ludotheque {
  if (current?.locale !== locale()) current = { locale: locale(), service: base.withLocale(locale()) };
  return token ? current.service.withToken(token) : current.service;
}

/** A live game over the WebSocket Play channel, as `token`'s seat (none: a spectator),
 * in the page's language, with presence (who is connected, and the rematch once someone
 * asks for one). It reconnects and resumes by itself. */
export function playSession(gameId: string, token?: string): GameSession {
  return new GameSession({ baseUrl: location.origin, gameId, token, locale: locale(), presence: true, known });
}

/** A seat this browser may play: its token, from CreateGame, JoinGame, PlayAgain or ImportGame. */
export interface HeldSeat {
  seat: number;
  name: string;
  token: string;
  /** The picture tapped for the seat (boards/avatars.ts), if one was. */
  picture?: string;
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
  /** One more seat of `gameId` (a join): kept beside the others, in seat order. */
  add(gameId: string, one: HeldSeat): void {
    const others = this.held(gameId).filter((seat) => seat.seat !== one.seat);
    this.keep(gameId, [...others, one].sort((a, b) => a.seat - b.seat));
  },
};

const HOST_KEY = (gameId: string): string => `ludotheque.host.${gameId}`;

/** The host token of a game created here with open seats: it may start the game with
 * bots in the seats nobody took (StartGame). Kept like the seats' tokens, never shown. */
export const hosts = {
  token(gameId: string): string {
    return localStorage.getItem(HOST_KEY(gameId)) ?? "";
  },
  keep(gameId: string, token: string): void {
    if (token) localStorage.setItem(HOST_KEY(gameId), token);
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
    return token ? api(token) : undefined;
  },
};

/** A short sentence for an error of the service. In English, the service's own message
 * (it names the particulars and says what to do); in another language, the message in
 * that language the error carries (google.rpc.LocalizedMessage). */
export function errorText(reason: unknown): string {
  if (reason instanceof ConnectError) {
    const [localized] = reason.findDetails(LocalizedMessageSchema);
    if (locale() !== "en" && localized?.message) return localized.message;
    return reason.rawMessage;
  }
  if (reason instanceof Error) return reason.message;
  return String(reason);
}
