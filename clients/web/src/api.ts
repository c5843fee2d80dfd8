// The service, through the TypeScript client (clients/typescript), on the page's own
// origin: no CORS, and the page's CSP allows nothing else. Every call asks for the
// page's language (descriptions of moves and events, error messages). Seat tokens live
// in this browser's localStorage, one list per game, and never in a URL; the admin
// token, typed into the debug panel, in sessionStorage only (gone with the tab). The
// highest version of each game this browser was given goes with every call about it,
// with its receipt (`known`): kept in localStorage for the games it holds a seat of, so
// that a server whose store lost moves shown here records the loss, even after a reload.

import { ConnectError, GameSession, type KnownVersions, Ludotheque } from "@ludotheque/client";
import { LocalizedMessageSchema } from "@ludotheque/client/gen/google/rpc/error_details_pb";

import { locale } from "./i18n";

const KNOWN_KEY = (gameId: string): string => `ludotheque.known.${gameId}`;
interface Known {
  version: bigint;
  receipt: string; // the service's proof that it gave this version
}
const seen = new Map<string, Known>();

/** What localStorage holds of the game ("<version> <receipt>"; none, or unreadable: nothing). */
function stored(gameId: string): Known {
  const [version = "0", receipt = ""] = (localStorage.getItem(KNOWN_KEY(gameId)) ?? "").split(" ");
  try {
    return { version: BigInt(version), receipt };
  } catch {
    return { version: 0n, receipt: "" }; // not a number: as if nothing were known
  }
}

/** The highest version of each game given to this page with its receipt: in memory, and
 * in localStorage for a game this browser holds a seat or the host token of. */
function held(gameId: string): Known {
  const here = seen.get(gameId) ?? { version: 0n, receipt: "" };
  const kept = stored(gameId);
  return here.version >= kept.version ? here : kept;
}

export const known: KnownVersions = {
  get: (gameId: string): bigint => held(gameId).version,
  receipt: (gameId: string): string => held(gameId).receipt,
  saw(gameId: string, version: bigint, receipt = ""): void {
    const before = seen.get(gameId) ?? { version: 0n, receipt: "" };
    if (version < before.version || (version === before.version && (receipt === "" || before.receipt !== ""))) return;
    seen.set(gameId, { version, receipt });
    if (seats.held(gameId).length > 0 || hosts.token(gameId)) localStorage.setItem(KNOWN_KEY(gameId), `${version} ${receipt}`);
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
