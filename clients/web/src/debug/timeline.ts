// Where the debug panel's versions come from, behind one interface:
//   LogTimeline  a complete log (a dropped file, or a game exported with the admin
//                token): the server replays it (ReplayLog), storing nothing, as any
//                viewer; a page of versions is fetched and kept per viewer.
//   GameTimeline a game of the server seen with this browser's tokens (a seat's, or
//                none): its events (ListEvents) and each version (ReplayGame) as that
//                caller saw them.

import type {
  Command,
  Event,
  GameLog,
  GameStatus,
  GameView,
  LogProblem,
  Ludotheque,
  Outcome,
  Seat,
} from "@ludotheque/client";

import { seats as heldSeats, service } from "../api";

/** Whose eyes: the admin's (complete), a spectator's, or a seat's. */
export type ViewerId = "admin" | "spectator" | `seat:${number}`;

export interface Step {
  atVersion: bigint;
  status: GameStatus;
  toAct: number[];
  outcome?: Outcome;
  view?: GameView;
  legalCommands: Command[];
}

export interface Timeline {
  kind: string;
  seats: Seat[];
  /** Every event known, as the timeline's source saw them (a dropped log: all of its lines). */
  events: Event[];
  /** The last version that can be shown (a broken log: the last before its first bad event). */
  last: number;
  /** Set when the log does not replay to its end. */
  problem?: LogProblem;
  /** The viewers this timeline can show, the first one the default. */
  viewers: ViewerId[];
  /** The game at `version` as `viewer` saw it. */
  step(version: number, viewer: ViewerId): Promise<Step>;
  /** The log to save (JSON Lines): complete, or as the caller saw it. */
  log(): Promise<GameLog>;
  /** Set when the admin may fork the game at a version (a complete log and the admin token). */
  fork?: (version: number) => Promise<{ gameId: string; seatTokens: string[] }>;
}

const PAGE = 100;

/** A complete log, replayed by the server. The first page (versions 0..99, complete
 * views) comes with the check, so a broken log is known at once. */
export async function logTimeline(client: Ludotheque, log: GameLog, admin?: Ludotheque): Promise<Timeline> {
  const first = await client.replayLog(log, { pageSize: PAGE });
  const seats = log.header?.seats ?? [];
  const cache = new Map<string, Step>();
  const key = (version: number, viewer: ViewerId): string => `${viewer}@${version}`;
  const keep = (viewer: ViewerId, steps: Step[]): void => {
    for (const step of steps) cache.set(key(Number(step.atVersion), viewer), step);
  };
  keep("admin", first.steps);
  // The server replays a few logs at once per process and refuses more (429): this page
  // asks for one page at a time, and for each page once however many steps wait for it.
  let queue: Promise<unknown> = Promise.resolve();
  const pages = new Map<string, Promise<void>>();
  const fetchPage = (start: number, viewer: ViewerId): Promise<void> => {
    const id = key(start, viewer);
    let pending = pages.get(id);
    if (pending === undefined) {
      pending = queue.then(async () => {
        const page = await client.replayLog(log, {
          fromVersion: BigInt(start),
          pageSize: PAGE,
          ...viewerOptions(viewer),
        });
        keep(viewer, page.steps);
      });
      pages.set(id, pending);
      queue = pending.catch(() => pages.delete(id)); // a page that failed may be asked again
    }
    return pending;
  };
  return {
    kind: log.header?.kind ?? "",
    seats,
    events: log.events,
    last: Number(first.replayed),
    problem: first.valid ? undefined : first.problem,
    viewers: ["admin", "spectator", ...seats.map((seat) => `seat:${seat.index}` as const)],
    async step(version, viewer) {
      const found = cache.get(key(version, viewer));
      if (found) return found;
      await fetchPage(Math.floor(version / PAGE) * PAGE, viewer);
      const step = cache.get(key(version, viewer));
      if (!step) throw new Error(`version ${version} cannot be shown`);
      return step;
    },
    log: async () => log,
    fork:
      admin && first.valid
        ? async (version) => {
            const forked = await admin.client.importGame({ log, truncateAt: BigInt(version) });
            return { gameId: forked.gameId, seatTokens: forked.seatTokens };
          }
        : undefined,
  };
}

function viewerOptions(viewer: ViewerId): { asSeat?: number; asSpectator?: boolean } {
  if (viewer === "spectator") return { asSpectator: true };
  if (viewer.startsWith("seat:")) return { asSeat: Number(viewer.slice(5)) };
  return {};
}

/** A game of the server: with the admin token, its complete log replayed (every viewer,
 * and forking); otherwise the versions as this browser's seats or a spectator saw them. */
export async function gameTimeline(gameId: string, admin: Ludotheque | undefined): Promise<Timeline> {
  if (admin) return logTimeline(admin, await admin.exportGame(gameId), admin);
  const held = heldSeats.held(gameId);
  const callers = new Map<ViewerId, Ludotheque>([["spectator", service]]);
  for (const seat of held) callers.set(`seat:${seat.seat}`, service.withToken(seat.token));
  const viewers = [...held.map((seat) => `seat:${seat.seat}` as const), "spectator" as const];
  const main = callers.get(viewers[0]) ?? service;
  const [game, events] = await Promise.all([main.getGame(gameId), main.history(gameId)]);
  return {
    kind: game.kind,
    seats: game.seats,
    events,
    last: Number(game.version),
    viewers,
    async step(version, viewer) {
      const caller = callers.get(viewer) ?? service;
      const replayed = await caller.replay(gameId, BigInt(version));
      return { ...replayed, atVersion: replayed.atVersion };
    },
    log: () => main.exportGame(gameId),
  };
}
