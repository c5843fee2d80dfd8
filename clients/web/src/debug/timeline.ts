// Where the debug panel's versions come from, behind one interface:
//   LogTimeline  a complete log (a dropped file, or a game exported with the admin
//                token): the server replays it (ReplayLog), storing nothing, as any
//                viewer; a page of versions is fetched and kept per viewer. Each step
//                carries its event described in the page's language.
//   SavedTimeline a log saved by a player or a spectator ("Save the log" without the
//                admin token): it hides what its viewer could not see, and has no seed,
//                so nothing can replay it; its events are shown as they were saved
//                (their words included), after the checks that need no seed.
//   GameTimeline a game of the server seen with this browser's tokens (a seat's, or
//                none): its events (ListEvents, described) and each version
//                (ReplayGame) as that caller saw them.

import type {
  Command,
  Event,
  GameLog,
  GameStatus,
  GameView,
  Ludotheque,
  Outcome,
  ReplayLogStep,
  Seat,
} from "@ludotheque/client";

import { Code, ConnectError, ViewerRole } from "@ludotheque/client";
import { api, seats as heldSeats } from "../api";

/** Whose eyes: the admin's (complete), a spectator's, or a seat's. */
export type ViewerId = "admin" | "spectator" | `seat:${number}`;

export interface Step {
  atVersion: bigint;
  /** The event that made this version, as the viewer saw it, described (a log's steps). */
  event?: Event;
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
  /** Set when the log does not replay to its end: its first bad event (0: the header). */
  problem?: { event: number; reason: string };
  /** Set for a log saved by a player or a spectator: shown as saved, not replayed. */
  saved?: { viewer: ViewerId };
  /** The viewers this timeline can show, the first one the default. */
  viewers: ViewerId[];
  /** The game at `version` as `viewer` saw it. */
  step(version: number, viewer: ViewerId): Promise<Step>;
  /** The log to save (JSON Lines): complete, or as the caller saw it. */
  log(): Promise<GameLog>;
  /** Set when the admin may fork the game at a version (a complete log and the admin token). */
  fork?: (version: number) => Promise<{ gameId: string; seatTokens: string[] }>;
  /** Each event's description by version, in the page's language, as far as known. */
  descriptions: Map<number, string>;
  /** Fetches the descriptions not known yet, calling `more` after each page. */
  describeAll(more: () => void, signal: AbortSignal): Promise<void>;
}

const PAGE = 100;
// The rest of a long log's descriptions, in as few calls as ReplayLog allows.
const DESCRIBED_PAGE = 1000;

/** A complete log, replayed by the server. The first page (versions 0..99, complete
 * views) comes with the check, so a broken log is known at once. */
export async function logTimeline(client: Ludotheque, log: GameLog, admin?: Ludotheque): Promise<Timeline> {
  const replay = oneAtATime(client);
  const first = await replay(log, { pageSize: PAGE });
  const seats = log.header?.seats ?? [];
  const cache = new Map<string, Step>();
  const key = (version: number, viewer: ViewerId): string => `${viewer}@${version}`;
  const descriptions = new Map<number, string>();
  const keep = (viewer: ViewerId, steps: ReplayLogStep[]): void => {
    for (const step of steps) {
      cache.set(key(Number(step.atVersion), viewer), step);
      if (viewer === "admin" && step.event?.description?.text) descriptions.set(Number(step.atVersion), step.event.description.text);
    }
  };
  keep("admin", first.steps);
  const last = Number(first.replayed);
  // Each page is asked once however many steps wait for it (a failed one may be asked again).
  const pages = new Map<string, Promise<void>>();
  const fetchPage = (start: number, viewer: ViewerId): Promise<void> => {
    const id = key(start, viewer);
    let pending = pages.get(id);
    if (pending === undefined) {
      pending = replay(log, { fromVersion: BigInt(start), pageSize: PAGE, ...viewerOptions(viewer) }).then((page) => keep(viewer, page.steps));
      pages.set(id, pending);
      pending.catch(() => pages.delete(id));
    }
    return pending;
  };
  return {
    descriptions,
    async describeAll(more, signal) {
      for (let from = PAGE; from <= last && !signal.aborted; from += DESCRIBED_PAGE) {
        keep("admin", (await replay(log, { fromVersion: BigInt(from), pageSize: DESCRIBED_PAGE })).steps);
        more();
      }
    },
    kind: log.header?.kind ?? "",
    seats,
    events: log.events,
    last,
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

/** A log saved by a player or a spectator (its header's viewer is not the admin, and it
 * has no seed): the steps are its events as saved, after the checks a log passes without
 * its seed (the events numbered 1, 2, 3..., each of the header's game and rules version). */
export function savedTimeline(log: GameLog): Timeline {
  const header = log.header;
  const seat = header?.viewer?.role === ViewerRole.SEAT ? header.viewer.seat : undefined;
  const viewer: ViewerId = seat === undefined ? "spectator" : `seat:${seat}`;
  const problem = savedProblem(log);
  const last = problem ? problem.event - 1 : log.events.length;
  const descriptions = new Map(log.events.flatMap((event) => (event.description?.text ? [[Number(event.version), event.description.text] as const] : [])));
  return {
    kind: header?.kind ?? "",
    seats: header?.seats ?? [],
    events: log.events,
    last,
    problem,
    saved: { viewer },
    viewers: [viewer],
    descriptions,
    describeAll: async () => undefined, // the words were saved with the events
    async step(version) {
      const event = log.events[version - 1];
      return { atVersion: BigInt(version), event, status: 0, toAct: [], view: undefined, legalCommands: [] };
    },
    log: async () => log,
  };
}

/** The first event of a saved log that is not where it should be: a version out of
 * order, an event of another game, another rules version. */
function savedProblem(log: GameLog): { event: number; reason: string } | undefined {
  const header = log.header;
  if (!header?.kind) return { event: 0, reason: "the header names no kind of game" };
  for (const [index, event] of log.events.entries()) {
    const number = index + 1;
    if (event.version !== BigInt(number)) return { event: number, reason: `its version is ${event.version}, not ${number}` };
    if (event.game.case !== undefined && event.game.case !== header.kind) return { event: number, reason: `it is an event of ${event.game.case}, not ${header.kind}` };
    if (event.rulesVersion && header.rulesVersion && event.rulesVersion !== header.rulesVersion) {
      return { event: number, reason: `it was played by the rules ${event.rulesVersion}, not ${header.rulesVersion}` };
    }
  }
  return undefined;
}

type Replay = Ludotheque["replayLog"];

/** ReplayLog, one call at a time from this page (the server replays only a couple of
 * logs at once per process and refuses more), and once more after the delay the server
 * asks for when it was busy all the same (another page, another person). */
function oneAtATime(client: Ludotheque): Replay {
  let queue: Promise<unknown> = Promise.resolve();
  const once: Replay = async (...args) => {
    try {
      return await client.replayLog(...args);
    } catch (reason) {
      if (!(reason instanceof ConnectError) || reason.code !== Code.ResourceExhausted) throw reason;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return client.replayLog(...args);
    }
  };
  return (...args) => {
    const next = queue.then(() => once(...args));
    queue = next.catch(() => undefined);
    return next;
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
  const callers = new Map<ViewerId, Ludotheque>([["spectator", api()]]);
  for (const seat of held) callers.set(`seat:${seat.seat}`, api(seat.token));
  const viewers = [...held.map((seat) => `seat:${seat.seat}` as const), "spectator" as const];
  const main = callers.get(viewers[0]) ?? api();
  const [game, events] = await Promise.all([main.getGame(gameId), main.history(gameId)]);
  const descriptions = new Map(events.flatMap((event) => (event.description?.text ? [[Number(event.version), event.description.text] as const] : [])));
  return {
    descriptions,
    describeAll: async () => undefined, // ListEvents described them all

    kind: game.kind,
    seats: game.seats,
    events,
    last: Number(game.version),
    viewers,
    async step(version, viewer) {
      const caller = callers.get(viewer) ?? api();
      const replayed = await caller.replay(gameId, BigInt(version));
      return { ...replayed, atVersion: replayed.atVersion };
    },
    log: () => main.exportGame(gameId),
  };
}
