// A thin typed wrapper over the generated GameService client: the calls a frontend
// makes most (create a game, act for a seat, follow a game, replay it), with the
// protocol's chores done once here: the bearer token, idempotency keys and retries,
// resuming a followed game after a dropped connection, a W3C `traceparent` on every
// call, and saying the highest version of each game it was given with its receipt
// (`knownVersion`, `knownReceipt`, known.ts).

import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import type { Client, Interceptor, Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";

import { PreconditionFailureSchema, RequestInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import { newCommandId } from "./ids.js";
import { explainUnreachable } from "./reach.js";
import { type KnownVersions, MemoryKnownVersions, saying } from "./known.js";
import { newTraceparent, type TraceparentSource } from "./trace.js";
import type {
  CommandSchema,
  Event,
  Game,
  GameLog,
  GameOptionsSchema,
  SeatSpecSchema,
  TurnClockSchema,
} from "./gen/ludotheque/v1/game_pb.js";
import type { GameKind } from "./gen/ludotheque/v1/game_kind_pb.js";
import { GameService } from "./gen/ludotheque/v1/game_service_pb.js";
import type {
  CreateGameRequestSchema,
  CreateGameResponse,
  GetHintResponse,
  JoinGameResponse,
  ListEventsResponse,
  PlayAgainResponse,
  QuickMatchResponse,
  ReplayGameResponse,
  ReplayLogResponse,
  SubmitCommandResponse,
} from "./gen/ludotheque/v1/game_service_pb.js";

/** A move, as the envelope of its game: `{ game: { case: "mooki", value: {...} } }`. */
export type CommandInit = MessageInitShape<typeof CommandSchema>;
/** A seat of a new game: a name, optionally an age and a bot (`"random"`, `"greedy"`). */
export type SeatInit = MessageInitShape<typeof SeatSpecSchema>;
/** A new game's options, as the envelope of its game; omitted means the defaults. */
export type GameOptionsInit = MessageInitShape<typeof GameOptionsSchema>;
/** The rest of a new game's request, e.g. `{ visibility: Visibility.LISTED }`. */
export type CreateGameMore = Omit<MessageInitShape<typeof CreateGameRequestSchema>, "kind" | "seats" | "options" | "$typeName">;

/** A turn clock: `{ turnSeconds: 60, bankSeconds: 300, takeOverAfter: 3 }`. */
export type TurnClockInit = MessageInitShape<typeof TurnClockSchema>;

export interface JoinOptions {
  /** The player's age (Mooki Island: the youngest starts). */
  age?: number;
  /** The open seat to take; default: the first open one. */
  seat?: number;
  /** The bot that plays for the player when their clock runs out or a bot takes the seat over. */
  standIn?: string;
}

export interface QuickMatchOptions {
  /** The game's options (only callers asking for the same ones share a game); omitted: the defaults. */
  options?: GameOptionsInit;
  /** How many seats the game has; default: the fewest the kind plays with. */
  players?: number;
  /** The player's age (Mooki Island: the youngest starts). */
  age?: number;
  /** The bot that plays for the player when their clock runs out or a bot takes the seat over. */
  standIn?: string;
  /** Let bots take the seats still empty this many seconds after the game's first player who asked (1 to 86400). */
  botsAfterSeconds?: number;
  /** The bot that takes them (`"random"`, `"greedy"`); default: the kind's. */
  bot?: string;
}

export interface SeatOptions {
  /** The seat: only the admin may name another than the token's. */
  seat?: number;
}

export interface LudothequeOptions {
  /** Where the service's HTTP port answers, e.g. `"http://localhost:8080"`. */
  baseUrl: string;
  /** A seat token (acts and sees as that seat), the admin token, or none (a spectator). */
  token?: string;
  /** Protobuf instead of JSON on the wire: smaller, but unreadable in devtools. */
  useBinaryFormat?: boolean;
  /** The fetch to call (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /** More interceptors, run after the one that adds the token. */
  interceptors?: Interceptor[];
  /** The language of descriptions and error messages, e.g. `"fr"` (sent as the
   * `accept-language` header, which fills in every request's `locale`). Default: the
   * runtime's own header (a browser's languages), else English. */
  locale?: string;
  /** Each call's W3C `traceparent` header: default a new trace per call (its id is in
   * the server's logs, and in `requestInfo(error)` when traced); a function to give
   * your own (an OpenTelemetry context's); `false`: none. A header an interceptor of
   * yours sets wins. */
  traceparent?: TraceparentSource;
  /** Where the highest version given of each game is kept (sent with every call about
   * it: known.ts). Default: in memory, shared by the clients `withToken` and
   * `withLocale` make; a web app may keep it in localStorage, across reloads. */
  known?: KnownVersions;
}

export interface ActOptions {
  /** The idempotency key (default: 128 random bits). Retrying with the same key plays the move once. */
  commandId?: string;
  /** Play only if the game is still at this version, otherwise the call fails with `Code.Aborted`. */
  expectedVersion?: bigint;
  /** The seat to act for: only the admin may name another seat than the token's. */
  seat?: number;
  /** How many times to resend the move (same key) after `Code.Unavailable`. Default 3. */
  retries?: number;
}

export interface FollowOptions {
  /** The first version to deliver (default 1: the whole game). */
  fromVersion?: bigint;
  /** Stops following: the iterator then throws a `Code.Canceled` ConnectError. */
  signal?: AbortSignal;
  /** Reconnections in a row, without any event in between, before giving up. Default 10. */
  maxRetries?: number;
  /** The first pause before reconnecting, doubled each time up to 5 s. Default 100 ms. */
  backoffMs?: number;
  /** Told of each error that is followed by a reconnection. */
  onRetry?: (error: ConnectError, attempt: number) => void;
}

// Errors after which following a game resumes: the service is unreachable for now
// (unavailable), or the connection broke, which fetch reports as unknown.
const TRANSIENT = new Set<Code>([Code.Unavailable, Code.Unknown]);
const MAX_BACKOFF_MS = 5000;

/** Whose view: a seat's, or a spectator's; neither means the caller's own (or, for a log, the complete one). */
export interface ViewerOptions {
  /** As this seat saw it (another seat than the caller's: the admin only, except for a log). */
  asSeat?: number;
  /** As a spectator saw it. */
  asSpectator?: boolean;
}

export interface ReplayLogOptions extends ViewerOptions {
  /** The first version to show (default 0: before the first event). */
  fromVersion?: bigint;
  /** The last version to show (default: the last that replays). */
  toVersion?: bigint;
  /** At most this many versions (default 100, at most 1000). */
  pageSize?: number;
}

/** One caller of the service: a seat, the admin or a spectator, as its token says. */
export class Ludotheque {
  /** The generated client itself, for every RPC and option this wrapper leaves out. */
  readonly client: Client<typeof GameService>;
  readonly options: LudothequeOptions;
  /** The highest version of each game this caller (and its `withToken` siblings) was given. */
  readonly known: KnownVersions;

  constructor(options: LudothequeOptions) {
    this.known = options.known ?? new MemoryKnownVersions();
    this.options = { ...options, known: this.known };
    this.client = createClient(GameService, transportFor(options));
  }

  /** The same service as another caller (a seat's token, or undefined for a spectator). */
  withToken(token: string | undefined): Ludotheque {
    return new Ludotheque({ ...this.options, token });
  }

  /** The same service, its descriptions and error messages in `locale` (e.g. `"fr"`). */
  withLocale(locale: string | undefined): Ludotheque {
    return new Ludotheque({ ...this.options, locale });
  }

  /** What a renderer needs to know about a kind of game: names, seats, bots, options
   * with their defaults and presets, rule codes, and its material (cards, colours,
   * boards as coordinates, tiles), in this service's language. */
  getGameKind(kind: string): Promise<GameKind> {
    return this.client.getGameKind({ kind });
  }

  /** Every kind of game the server plays, each as `getGameKind` answers it. */
  async listGameKinds(): Promise<GameKind[]> {
    return (await this.client.listGameKinds({})).kinds;
  }

  /** Creates and deals a game; its `seatTokens` are the players' tokens, in seat order.
   * Seats may be left open (`{ open: true }`) for players to join (`joinGame`), with its
   * `game.joinCode`; the game is then dealt once they have (or when the holder of its
   * `hostToken` starts it). `more`: the request's other fields, such as its `visibility`
   * (unlisted by default) or a turn `clock` (`{ clock: { turnSeconds: 60 } }`). */
  async createGame(
    kind: string,
    seats: SeatInit[],
    options?: GameOptionsInit,
    more: CreateGameMore = {},
  ): Promise<CreateGameResponse> {
    const created = await this.client.createGame({ ...more, kind, seats, options });
    this.sawGame(created.game);
    return created;
  }

  /** Takes an open seat of a game, by its id or its join code: the response holds the
   * seat's token (`withToken(joined.seatToken)` plays it). */
  async joinGame(gameIdOrCode: string, name: string, options: JoinOptions = {}): Promise<JoinGameResponse> {
    const joined = await this.client.joinGame({ gameId: gameIdOrCode, name, ...options });
    this.sawGame(joined.game);
    return joined;
  }

  /** Play with anyone: takes an open seat of the game of this kind (and options, and
   * number of players) that waits for players, or creates it. The response holds the
   * seat's token (`withToken(matched.seatToken)` plays it), and `created` says whether
   * this call created the game. Every server sharing the store seats its callers in
   * the same waiting game until it is full. */
  async quickMatch(kind: string, name: string, options: QuickMatchOptions = {}): Promise<QuickMatchResponse> {
    const matched = await this.client.quickMatch({ kind, name, ...options });
    this.sawGame(matched.game);
    return matched;
  }

  /** Leaves this caller's seat before the game starts; its token then stops working. */
  async leaveGame(gameId: string): Promise<Game | undefined> {
    return this.sawGame((await this.client.leaveGame({ gameId })).game);
  }

  /** The host (with the host token) or the admin: deals the game now, with `bot` (default
   * "greedy") in the seats nobody took. */
  async startGame(gameId: string, bot = ""): Promise<Game | undefined> {
    return this.sawGame((await this.client.startGame({ gameId, bot })).game);
  }

  /** The rematch of a finished game, the same for every player who asks, with this
   * caller's token in it. */
  async playAgain(gameId: string): Promise<PlayAgainResponse> {
    const rematch = await this.client.playAgain({ gameId });
    this.sawGame(rematch.game);
    return rematch;
  }

  /** Lets a bot (default: the seat's stand-in) play this caller's seat until it is handed back. */
  async takeOverSeat(gameId: string, options: SeatOptions & { bot?: string } = {}): Promise<Game | undefined> {
    return this.sawGame((await this.client.takeOverSeat({ gameId, ...options })).game);
  }

  /** Plays this caller's seat again after a bot took it over. */
  async handBackSeat(gameId: string, options: SeatOptions = {}): Promise<Game | undefined> {
    return this.sawGame((await this.client.handBackSeat({ gameId, ...options })).game);
  }

  /** The game as this caller sees it, with the moves it may make (`legalCommands`). */
  async getGame(gameId: string): Promise<Game> {
    const game = await this.client.getGame({ gameId, ...saying(this.known, gameId) });
    this.known.saw(gameId, game.version, game.receipt);
    return game;
  }

  /** A hint for this caller's seat, on its turn: the move its game's strongest bot would
   * make (`command`, as `legalCommands` tells it: send it back to `act` as it came) and
   * one short `reason` in this service's language (`reason.text`). Refused when it is not
   * the seat's turn or the game is over; a seat may ask a few a minute (`ResourceExhausted`
   * past them, with a retry delay). */
  getHint(gameId: string): Promise<GetHintResponse> {
    return this.client.getHint({ gameId });
  }

  /** Plays a move for this caller's seat. A retry after `Unavailable` reuses the same
   * command id, so the move is played at most once. */
  async act(gameId: string, command: CommandInit, options: ActOptions = {}): Promise<SubmitCommandResponse> {
    const request = {
      gameId,
      command,
      commandId: options.commandId ?? newCommandId(),
      expectedVersion: options.expectedVersion,
      seat: options.seat,
      ...saying(this.known, gameId),
    };
    const retries = options.retries ?? 3;
    for (let attempt = 0; ; attempt++) {
      try {
        const played = await this.client.submitCommand(request);
        this.known.saw(gameId, played.version, played.receipt);
        return played;
      } catch (reason) {
        const error = ConnectError.from(reason);
        if (error.code !== Code.Unavailable || attempt >= retries) throw error;
        await pause(backoff(100, attempt + 1));
      }
    }
  }

  /** The game's events as this caller may see them, from `fromVersion` on, then live as
   * they happen; the iteration ends after the last event of a finished game. A dropped
   * connection is resumed from the last version delivered, so no event is missed or repeated;
   * so is a stream that ended before the game did (over HTTP/1.1 the server sends a long
   * game's past a page a call). */
  async *follow(gameId: string, options: FollowOptions = {}): AsyncGenerator<Event, void, undefined> {
    let next = options.fromVersion ?? 1n;
    const maxRetries = options.maxRetries ?? 10;
    let failures = 0;
    for (;;) {
      try {
        const request = { gameId, fromVersion: next, ...saying(this.known, gameId) };
        const responses = this.client.streamEvents(request, { signal: options.signal });
        let delivered = false;
        let over = false;
        for await (const { event, receipt } of responses) {
          if (event === undefined || event.version < next) continue;
          next = event.version + 1n;
          this.known.saw(gameId, event.version, receipt);
          failures = 0;
          delivered = true;
          over = event.gameOver;
          yield event;
        }
        if (over || !delivered) return; // the game's end (or nothing more will come)
        continue; // a page of a long past: the next one
      } catch (reason) {
        const error = ConnectError.from(reason);
        if (!TRANSIENT.has(error.code) || options.signal?.aborted || failures >= maxRetries) throw error;
        failures++;
        options.onRetry?.(error, failures);
        await pause(backoff(options.backoffMs ?? 100, failures), options.signal);
      }
    }
  }

  /** Time travel: the game as this caller saw it at `atVersion` (default: now). */
  async replay(gameId: string, atVersion?: bigint): Promise<ReplayGameResponse> {
    const replayed = await this.client.replayGame({ gameId, atVersion, ...saying(this.known, gameId) });
    this.known.saw(gameId, replayed.version, replayed.receipt);
    return replayed;
  }

  /** The game's log (complete for the admin; as the caller, or `options`' viewer, saw it). */
  async exportGame(gameId: string, options: ViewerOptions = {}): Promise<GameLog> {
    const { log } = await this.client.exportGame({
      gameId,
      asSeat: options.asSeat,
      asSpectator: options.asSpectator ?? false,
    });
    if (log === undefined) throw new ConnectError("the server sent no log", Code.Internal);
    return log;
  }

  /** Has the server verify and replay a complete log (ReplayLog), storing nothing:
   * `valid`, or the first bad event (`problem`), and a page of its versions as one
   * viewer saw them (complete by default). Read one with `parseLog` (logs.ts). */
  replayLog(log: GameLog, options: ReplayLogOptions = {}): Promise<ReplayLogResponse> {
    return this.client.replayLog({
      log,
      fromVersion: options.fromVersion ?? 0n,
      toVersion: options.toVersion,
      pageSize: options.pageSize ?? 0,
      asSeat: options.asSeat,
      asSpectator: options.asSpectator ?? false,
    });
  }

  /** Every event of the game so far as this caller may see them, page after page. */
  async history(gameId: string, fromVersion = 1n): Promise<Event[]> {
    const events: Event[] = [];
    let page: ListEventsResponse;
    do {
      page = await this.client.listEvents({ gameId, fromVersion, ...saying(this.known, gameId) });
      this.known.saw(gameId, page.version, page.receipt);
      events.push(...page.events);
      fromVersion = page.nextFromVersion;
    } while (fromVersion !== 0n);
    return events;
  }

  private sawGame(game: Game | undefined): Game | undefined {
    if (game !== undefined) this.known.saw(game.gameId, game.version, game.receipt);
    return game;
  }
}

/** The rule an illegal move broke (e.g. `"not_your_turn"`), or undefined for another error. */
export function ruleCode(reason: unknown): string | undefined {
  const error = ConnectError.from(reason);
  if (error.code !== Code.FailedPrecondition) return undefined;
  for (const failure of error.findDetails(PreconditionFailureSchema)) {
    const rule = failure.violations.find((violation) => violation.type === "RULE");
    if (rule !== undefined) return rule.subject;
  }
  return undefined;
}

/**
 * Which request failed, for a bug report: the server's request id, and the trace id when
 * the call was traced (from the error's `google.rpc.RequestInfo`); undefined without one.
 */
export function requestInfo(reason: unknown): { requestId: string; traceId?: string } | undefined {
  const [info] = ConnectError.from(reason).findDetails(RequestInfoSchema);
  if (info === undefined) return undefined;
  const traceId = /^trace_id=([0-9a-f]{32})$/.exec(info.servingData)?.[1];
  return traceId === undefined ? { requestId: info.requestId } : { requestId: info.requestId, traceId };
}

/** A Connect transport to `options.baseUrl` that sends `options.token` and
 * `options.locale`, if any. */
export function transportFor(options: LudothequeOptions): Transport {
  const interceptors = [
    ...(options.traceparent === false ? [] : [traced(options.traceparent ?? (() => newTraceparent()))]),
    ...(options.token ? [bearer(options.token)] : []),
    ...(options.locale ? [language(options.locale)] : []),
    ...(options.interceptors ?? []),
    explainUnreachable(options.baseUrl, options.fetch), // innermost: it sees fetch's own failure
  ];
  return createConnectTransport({
    baseUrl: options.baseUrl,
    useBinaryFormat: options.useBinaryFormat ?? false,
    interceptors,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

function traced(traceparent: () => string | undefined): Interceptor {
  return (next) => (request) => {
    const header = traceparent();
    if (header !== undefined && !request.header.has("traceparent")) request.header.set("traceparent", header);
    return next(request);
  };
}

function bearer(token: string): Interceptor {
  return (next) => (request) => {
    request.header.set("authorization", `Bearer ${token}`);
    return next(request);
  };
}

function language(locale: string): Interceptor {
  return (next) => (request) => {
    request.header.set("accept-language", locale);
    return next(request);
  };
}

function backoff(firstMs: number, attempt: number): number {
  return Math.min(firstMs * 2 ** (attempt - 1), MAX_BACKOFF_MS);
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(ConnectError.from(signal.reason, Code.Canceled));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(ConnectError.from(signal?.reason, Code.Canceled));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
