// GameSession: one seat's (or a spectator's) live game over the WebSocket Play channel
// (GET /v1/play), as a small external store a UI reads from. It holds what a page draws
// (the view, whose turn, the seats with their names and presence, the legal moves, the
// event log, the outcome), applies what arrives, marks a move pending until its result,
// and reconnects by itself, resuming from the last version it holds (the server sends
// nothing twice and skips nothing). It connects when its first listener subscribes and
// lets go when the last one leaves, so a framework may create it freely (React's
// StrictMode mounts twice): subscribe/getSnapshot is what useSyncExternalStore takes
// (`@ludotheque/client/react` wraps it), and Vue or Svelte wrap it in one line.

import { create, fromBinary, fromJsonString, toBinary, toJsonString } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";

import type { Status } from "./gen/google/rpc/status_pb.js";
import { GameStatus, ViewerRole } from "./gen/ludotheque/v1/game_pb.js";
import type { Command, Event, Game, GameView, Outcome, Seat, SeatClock } from "./gen/ludotheque/v1/game_pb.js";
import { PlayRequestSchema, PlayResponseSchema } from "./gen/ludotheque/v1/game_service_pb.js";
import type { PlayRematch, PlayRequest, PlayResponse, PlayResult } from "./gen/ludotheque/v1/game_service_pb.js";
import { newCommandId, randomHex } from "./ids.js";
import { type KnownVersions, MemoryKnownVersions, saying } from "./known.js";
import { Ludotheque, type CommandInit } from "./ludotheque.js";
import type { SeatStore } from "./seats.js";
import { newTraceparent, traceIdOf, type TraceparentSource } from "./trace.js";

/** The WebSocket subprotocols of GET /v1/play. */
export const PLAY_PROTOCOLS = { binary: "ludotheque.v1.proto", json: "ludotheque.v1.json" } as const;

/** Where the session stands: idle (nobody subscribed yet, or everyone left: it connects
 * again, resuming, when someone subscribes), connecting, open, reconnecting after a
 * drop, or closed for good (by `close()`, after the game's end, or on an error that
 * retrying cannot mend: see `error`). A session that follows `presence` stays open
 * after the game's end, to hear of its rematch, until `close()`. */
export type SessionStatus = "idle" | "connecting" | "open" | "reconnecting" | "closed";

/** A move sent and not yet answered. */
export interface PendingMove {
  readonly commandId: string;
  readonly command: Command;
}

/** A seat at the table, as a page shows it. */
export interface SessionSeat {
  /** The seat's number, from 0. */
  readonly index: number;
  /** The player's name ("" for an open seat nobody took yet). */
  readonly name: string;
  /** The bot playing the seat now, if any (a bot's seat, or a player's taken over). */
  readonly bot: string;
  /** Whether its player is connected now: with `presence` only, else undefined. */
  readonly online: boolean | undefined;
  /** The game waits for this seat. */
  readonly toAct: boolean;
  /** This session's own seat. */
  readonly you: boolean;
  /** The whole Seat message (age, open, stand-in, clock...). */
  readonly seat: Seat;
}

/** What the session holds, as one immutable value: a new object after every change, so
 * `snapshot !== previous` says something changed. */
export interface GameSnapshot {
  readonly status: SessionStatus;
  /** The kind of game ("mooki"...), once the game has been read ("" before). */
  readonly kind: string;
  /** While seats are open: the game's join code, the invitation to share ("" otherwise). */
  readonly joinCode: string;
  /** The version of the last event received (0n before any). */
  readonly version: bigint;
  /** Every event received, in order, whole (as the server sent them, every field kept). */
  readonly events: readonly Event[];
  /** What this caller sees, as of `version` (undefined until the game first comes to rest). */
  readonly view: GameView | undefined;
  /** The seats in order, with their names, presence and whose turn it is (empty until
   * the game has been read; read again whenever a table event changes them). */
  readonly seats: readonly SessionSeat[];
  /** The seats the game waits for now (from the view; empty once it is over). */
  readonly toAct: readonly number[];
  /** This session's seat (undefined for a spectator, or until the game has been read). */
  readonly mySeat: number | undefined;
  /** The moves this seat may make now: empty when it is not its turn (or for a spectator). */
  readonly legalCommands: readonly Command[];
  /** Moves sent and not yet answered: show them as pending. */
  readonly pending: readonly PendingMove[];
  /** The last move's result (its `error` set when it was refused). */
  readonly lastResult: PlayResult | undefined;
  /** True once the game's last event has come. */
  readonly gameOver: boolean;
  /** How the game ended (winners, scores, and its `summary` for people), read once it is
   * over: a moment after `gameOver`, before the session closes. */
  readonly outcome: Outcome | undefined;
  /** Why the session closed, or the last reason it had to reconnect. */
  readonly error: ConnectError | undefined;
  /** How many times the connection dropped and was opened again. */
  readonly reconnects: number;
  /** With `presence`: the seats whose players are connected now (a Play session open, or
   * a call a moment ago), in order; updated live. Empty without `presence`. */
  readonly onlineSeats: readonly number[];
  /** In a game with a turn clock, while it is this seat's turn: its clock as of
   * `clockReceivedAt` (count `remaining` down from then; no synchronised clocks needed). */
  readonly clock: SeatClock | undefined;
  /** When `clock` came (Date.now(), in milliseconds). */
  readonly clockReceivedAt: number;
  /** With `presence`, once the game is over and someone asked for a rematch: its game id
   * and this seat's token in it (open a new session on it). */
  readonly rematch: PlayRematch | undefined;
}

/** The WebSocket class to use: the browser's, Node's (22+, or 20 with
 * --experimental-websocket), or any with the same API. */
export type WebSocketClass = new (url: string, protocols?: string | string[]) => WebSocket;

export interface GameSessionOptions {
  /** The service's HTTP port, e.g. `"http://localhost:8080"` (https: a wss:// socket). */
  baseUrl: string;
  /** The game. */
  gameId: string;
  /** The seat token; none: the one `seatStore` holds for the game, else a spectator.
   * Sent in the join message, never in the URL. */
  token?: string;
  /** Where the page keeps its seats (`storageSeats(localStorage)`: a reload plays the
   * same seat): the token comes from it when none is given, the token given is kept
   * in it, and so is the rematch's. */
  seatStore?: SeatStore;
  /** The language of the events' and moves' descriptions and of error messages, e.g.
   * `"fr"` (the join's `locale`). Default: English. */
  locale?: string;
  /** "binary" (protobuf, the default) or "json" (readable in devtools). */
  format?: "binary" | "json";
  /** Connections in a row that fail before the session gives up. Default 10. */
  maxRetries?: number;
  /** The first pause before reconnecting, doubled each time up to 5 s. Default 200 ms. */
  backoffMs?: number;
  /** Default: the global WebSocket. */
  WebSocket?: WebSocketClass;
  /** The fetch that reads the game (its seats and outcome): default the global one. */
  fetch?: typeof globalThis.fetch;
  /** Also receive who is connected (`onlineSeats`, `seats[i].online`) and, once the game
   * is over, its `rematch`. Whether or not, the seat is online while the session is open. */
  presence?: boolean;
  /** The W3C `traceparent` of each connection and read (the socket's goes in its URL: a
   * browser cannot send headers with it). Default: one trace for the whole session,
   * `traceId`, so its server logs and traces are found by one id. `false`: none. */
  traceparent?: TraceparentSource;
  /** Where the highest version given of each game is kept: the join and the session's
   * reads of the game say it with its receipt (`knownVersion`, `knownReceipt`, known.ts), whichever server or call gave
   * it, and the session notes what it is given. Default: the session's own, in memory;
   * share a Ludotheque's `known` (or one kept in localStorage) to carry it across. */
  known?: KnownVersions;
}

export interface PlayOptions {
  /** The idempotency key (default: 128 random bits): a move resent after a drop is played once. */
  commandId?: string;
  /** Play only if the game is still at this version (else refused with `Code.Aborted`). */
  expectedVersion?: bigint;
}

// Close codes after which reconnecting cannot help: 4000 + these gRPC codes (a bad or
// revoked token, an origin not in --cors-origins, a game that does not exist...).
const FINAL_CODES = new Set<Code>([
  Code.InvalidArgument,
  Code.NotFound,
  Code.PermissionDenied,
  Code.Unauthenticated,
  Code.FailedPrecondition,
]);
const ERROR_CLOSE_BASE = 4000;
const MAX_BACKOFF_MS = 5000;

interface Waiting {
  request: PlayRequest;
  resolve(result: PlayResult): void;
  reject(error: ConnectError): void;
}

type Change = Partial<{ -readonly [K in keyof GameSnapshot]: GameSnapshot[K] }>;

const INITIAL: GameSnapshot = {
  status: "idle",
  kind: "",
  joinCode: "",
  version: 0n,
  events: [],
  view: undefined,
  seats: [],
  toAct: [],
  mySeat: undefined,
  legalCommands: [],
  pending: [],
  lastResult: undefined,
  gameOver: false,
  outcome: undefined,
  error: undefined,
  reconnects: 0,
  onlineSeats: [],
  clock: undefined,
  clockReceivedAt: 0,
  rematch: undefined,
};

/** A live game for one caller over the WebSocket Play channel. Creating one does
 * nothing: it connects when its first listener subscribes. */
export class GameSession {
  /** The seat token the session plays with (undefined: a spectator). */
  readonly token: string | undefined;
  /** The trace id of the session's connections and reads (W3C trace context): quote it
   * in a bug report. Undefined with `traceparent: false`, or your own until it sent one. */
  traceId: string | undefined;
  private snapshot: GameSnapshot = INITIAL;
  private readonly listeners = new Set<() => void>();
  private readonly waiting = new Map<string, Waiting>();
  private socket: WebSocket | undefined;
  private failures = 0;
  private opened = false; // whether the current connection attempt ever opened
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly url: URL;
  private readonly WebSocketClass: WebSocketClass;
  private readonly json: boolean;
  /** The highest version of each game given to this session (and whoever shares it). */
  readonly known: KnownVersions;
  private readonly reader: Ludotheque;
  private game: Game | undefined; // the game as last read: its seats, viewer and outcome
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private endRead = false; // the game was read after its end: the outcome is known

  constructor(readonly options: GameSessionOptions) {
    this.url = new URL("/v1/play", options.baseUrl);
    this.url.protocol = this.url.protocol === "https:" || this.url.protocol === "wss:" ? "wss:" : "ws:";
    this.json = options.format === "json";
    this.known = options.known ?? new MemoryKnownVersions();
    const found = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketClass }).WebSocket;
    if (found === undefined) throw new Error("no WebSocket class: pass options.WebSocket (Node 20: --experimental-websocket)");
    this.WebSocketClass = found;
    this.token = options.token || options.seatStore?.get(options.gameId) || undefined;
    if (options.token) options.seatStore?.set(options.gameId, options.token);
    this.traceId = options.traceparent === undefined ? randomHex(16) : undefined;
    this.reader = new Ludotheque({
      baseUrl: options.baseUrl,
      token: this.token,
      locale: options.locale,
      fetch: options.fetch,
      traceparent: () => this.nextTraceparent(),
      known: this.known, // its reads say and note what the socket does
    });
  }

  /** Calls `listener` after every change; returns the function that stops it. The first
   * listener connects the session; when the last one leaves, it lets go of its
   * connection (after the current task, so that a framework's quick unsubscribe and
   * subscribe again keep it), and resumes where it was when someone subscribes again.
   * (An arrow property: pass it unbound, e.g. `useSyncExternalStore(session.subscribe,
   * session.getSnapshot)`.) */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.snapshot.status === "idle") this.connect("connecting");
    return () => {
      if (!this.listeners.delete(listener) || this.listeners.size > 0) return;
      if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => {
        this.idleTimer = undefined;
        if (this.listeners.size === 0) this.suspend();
      }, 0);
    };
  };

  /** The current state, the same object until something changes. */
  readonly getSnapshot = (): GameSnapshot => this.snapshot;

  /** Plays a move for this seat: pending at once, resolved with its result (after the
   * events it caused), rejected with a ConnectError if the server refuses it (an illegal
   * move: `ruleCode(error)` names the rule) or the session closes first. A move whose
   * connection drops is sent again with its command id after reconnecting: played once.
   * (An idle session sends it once someone subscribes.) */
  play(command: CommandInit, options: PlayOptions = {}): Promise<PlayResult> {
    if (this.snapshot.status === "closed") {
      return Promise.reject(this.snapshot.error ?? new ConnectError("the session is closed", Code.Canceled));
    }
    const request = create(PlayRequestSchema, {
      message: {
        case: "command",
        value: { command, commandId: options.commandId ?? newCommandId(), expectedVersion: options.expectedVersion },
      },
    });
    if (request.message.case !== "command" || request.message.value.command === undefined) {
      return Promise.reject(new ConnectError("a move needs a command", Code.InvalidArgument));
    }
    const move = { commandId: request.message.value.commandId, command: request.message.value.command };
    const answered = new Promise<PlayResult>((resolve, reject) => {
      this.waiting.set(move.commandId, { request, resolve, reject });
    });
    this.update({ pending: [...this.snapshot.pending, move] });
    if (this.snapshot.status === "open") this.send(request);
    return answered;
  }

  /** Ends the session for good: closes the socket, rejects pending moves, stops reconnecting. */
  close(): void {
    this.finish(undefined);
  }

  // --- the connection -------------------------------------------------------------------

  private connect(status: "connecting" | "reconnecting"): void {
    const url = new URL(this.url);
    const traceparent = this.nextTraceparent();
    if (traceparent !== undefined) url.searchParams.set("traceparent", traceparent);
    const socket = new this.WebSocketClass(url.toString(), this.json ? PLAY_PROTOCOLS.json : PLAY_PROTOCOLS.binary);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    this.opened = false;
    if (this.snapshot.status !== status) this.update({ status });
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.opened = true;
      // From the version after the last one held: nothing twice, nothing skipped. The
      // server answers with the view and, if it is this seat's turn, its legal moves.
      this.send(
        create(PlayRequestSchema, {
          message: {
            case: "join",
            value: {
              gameId: this.options.gameId,
              token: this.token ?? "",
              fromVersion: this.snapshot.version + 1n,
              ...saying(this.known, this.options.gameId),
              viewUpdates: true,
              locale: this.options.locale ?? "",
              presence: this.options.presence ?? false,
            },
          },
        }),
      );
      for (const move of this.waiting.values()) this.send(move.request); // the same command ids: played once
      this.update({ status: "open", legalCommands: [] });
      if (this.game === undefined) void this.read();
    };
    socket.onmessage = (message: MessageEvent) => {
      if (this.socket !== socket) return;
      const response = this.decode(message.data);
      if (response.error === undefined) this.failures = 0; // the session works: retries start over
      this.receive(response);
    };
    socket.onclose = (closed: CloseEvent) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.dropped(closed.code, closed.reason);
    };
    // A connection that fails (refused, reset) fires `error`, and its `close` may never
    // follow (Node 20's WebSocket): the failure is the drop.
    socket.onerror = () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      socket.close();
      this.dropped(1006, "");
    };
  }

  private dropped(code: number, reason: string): void {
    if (this.snapshot.status === "closed" || this.snapshot.status === "idle") return;
    const grpcCode = code - ERROR_CLOSE_BASE;
    const error =
      this.snapshot.error?.code === grpcCode && code > ERROR_CLOSE_BASE
        ? this.snapshot.error // the server's last message said why, with its details
        : new ConnectError(reason || this.unexplained(code), code > ERROR_CLOSE_BASE ? grpcCode : Code.Unavailable);
    const maxRetries = this.options.maxRetries ?? 10;
    if (FINAL_CODES.has(error.code) || this.failures >= maxRetries) {
      this.finish(error);
      return;
    }
    this.failures++;
    this.update({ status: "reconnecting", error, reconnects: this.snapshot.reconnects + 1 });
    const pause = Math.min((this.options.backoffMs ?? 200) * 2 ** (this.failures - 1), MAX_BACKOFF_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.snapshot.status === "reconnecting") this.connect("reconnecting");
    }, pause);
  }

  /** What a drop with no reason says: a socket that never opened could not reach the
   * server, or was refused by something in between (a browser says no more). */
  private unexplained(code: number): string {
    if (this.opened) return `the connection closed (${code})`;
    return `could not open a WebSocket to ${this.url.href} (${code}): is the server up and reachable from here?`;
  }

  /** Nobody listens any more: let go of the connection, keep everything else. */
  private suspend(): void {
    if (this.snapshot.status === "closed" || this.snapshot.status === "idle") return;
    this.stopConnecting();
    this.update({ status: "idle", legalCommands: [] });
  }

  private finish(error: ConnectError | undefined): void {
    if (this.snapshot.status === "closed") return;
    this.stopConnecting();
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    const why = error ?? new ConnectError("the session was closed", Code.Canceled);
    for (const move of this.waiting.values()) move.reject(why);
    this.waiting.clear();
    this.update({ status: "closed", error, pending: [], legalCommands: [] });
  }

  private stopConnecting(): void {
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const socket = this.socket;
    this.socket = undefined;
    if (socket !== undefined && socket.readyState <= 1) socket.close(1000);
  }

  private nextTraceparent(): string | undefined {
    const source = this.options.traceparent;
    if (source === false) return undefined;
    if (source === undefined) return newTraceparent(this.traceId);
    const header = source();
    this.traceId = traceIdOf(header) ?? this.traceId;
    return header;
  }

  // --- messages -------------------------------------------------------------------------

  private receive(message: PlayResponse): void {
    const change: Change = {};
    const gameId = this.options.gameId;
    // The message's receipt is that of the highest version it gives.
    const told = [message.events.at(-1)?.version, message.result?.version, message.turn?.version].reduce<bigint>(
      (highest, version) => (version !== undefined && version > highest ? version : highest),
      0n,
    );
    if (told > 0n) this.known.saw(gameId, told, message.receipt);
    let version = this.snapshot.version;
    const fresh = message.events.filter((event) => event.version > version);
    if (fresh.length > 0) {
      version = fresh.at(-1)!.version;
      change.events = [...this.snapshot.events, ...fresh];
      change.version = version;
      change.legalCommands = []; // the game moved on: a turn comes if it is this seat's
      change.clock = undefined; // (and its clock with it)
      if (fresh.some((event) => event.gameOver)) change.gameOver = true;
    }
    if (message.view !== undefined) change.view = message.view;
    if (message.turn !== undefined && message.turn.version === version) {
      change.legalCommands = message.turn.legalCommands;
      change.clock = message.turn.clock;
      change.clockReceivedAt = Date.now();
    }
    if (message.presence !== undefined) change.onlineSeats = message.presence.onlineSeats;
    if (message.rematch !== undefined) {
      change.rematch = message.rematch;
      if (message.rematch.seatToken) this.options.seatStore?.set(message.rematch.gameId, message.rematch.seatToken);
    }
    const result = message.result;
    if (result !== undefined) {
      change.lastResult = result;
      change.pending = this.snapshot.pending.filter((move) => move.commandId !== result.commandId);
      const move = this.waiting.get(result.commandId);
      this.waiting.delete(result.commandId);
      if (move !== undefined) {
        if (result.error === undefined) move.resolve(result);
        else move.reject(errorOf(result.error));
      }
    }
    if (message.error !== undefined) change.error = errorOf(message.error); // the socket closes next
    this.update(change);
    // Who sits where changes with table events (a player joins, a bot takes over); the
    // outcome is read once the game is over.
    if (change.gameOver || fresh.some((event) => event.table !== undefined)) void this.read();
    this.finishIfOver();
  }

  /** Nothing more will come once the game is over and read, and every move answered
   * (but a session that follows presence waits for a rematch). */
  private finishIfOver(): void {
    if (this.snapshot.gameOver && this.endRead && this.waiting.size === 0 && !this.options.presence) {
      this.finish(undefined);
    }
  }

  /** Reads the game (its seats, the viewer's seat, the outcome), once at a time: a read
   * asked for meanwhile is made after it. A read that fails changes nothing (the socket
   * says what is wrong); the next connection or table event reads again. */
  private read(): Promise<void> {
    if (this.reading !== undefined) {
      this.readAgain = true;
      return this.reading;
    }
    const over = this.snapshot.gameOver;
    this.reading = (async () => {
      do {
        this.readAgain = false;
        try {
          this.learn(await this.reader.getGame(this.options.gameId));
        } catch {
          // the socket's own close says why, if something is wrong
        }
      } while (this.readAgain && this.snapshot.status !== "closed");
    })().finally(() => {
      this.reading = undefined;
      if (over || this.snapshot.gameOver) this.endRead = true;
      this.finishIfOver();
    });
    return this.reading;
  }

  private learn(game: Game): void {
    this.game = game;
    const over = game.status === GameStatus.FINISHED;
    const open = game.seats.some((seat) => seat.open);
    this.update({ kind: game.kind, joinCode: open ? game.joinCode : "", outcome: over ? game.outcome : this.snapshot.outcome });
  }

  private decode(data: unknown): PlayResponse {
    if (typeof data === "string") return fromJsonString(PlayResponseSchema, data, { ignoreUnknownFields: true });
    return fromBinary(PlayResponseSchema, new Uint8Array(data as ArrayBuffer));
  }

  private send(request: PlayRequest): void {
    const socket = this.socket;
    if (socket === undefined || socket.readyState !== 1) return; // sent again after reconnecting
    socket.send(this.json ? toJsonString(PlayRequestSchema, request) : toBinary(PlayRequestSchema, request));
  }

  private update(change: Change): void {
    const next: GameSnapshot = { ...this.snapshot, ...change };
    const table = this.table(next);
    this.snapshot = table === undefined ? next : { ...next, ...table };
    for (const listener of [...this.listeners]) listener();
  }

  /** The seats, whose turn and this session's seat, when what they come from changed
   * (new arrays only then: a page may compare them). */
  private table(next: GameSnapshot): Change | undefined {
    const before = this.snapshot;
    const game = this.game;
    if (
      before !== INITIAL &&
      next.view === before.view &&
      next.gameOver === before.gameOver &&
      next.onlineSeats === before.onlineSeats &&
      this.tableOf === game
    ) {
      return undefined;
    }
    this.tableOf = game;
    const toAct = next.gameOver ? [] : whoseTurn(next.view, game);
    const mySeat = game?.viewer?.role === ViewerRole.SEAT ? game.viewer.seat : undefined;
    const seats = (game?.seats ?? []).map((seat) => ({
      index: seat.index,
      name: seat.name,
      bot: seat.takenOverBy || seat.bot,
      online: this.options.presence ? next.onlineSeats.includes(seat.index) : undefined,
      toAct: toAct.includes(seat.index),
      you: seat.index === mySeat,
      seat,
    }));
    return { toAct, mySeat, seats };
  }

  private tableOf: Game | undefined;
}

/** The seats the game waits for: its view's active seat (every game's view has one),
 * else what the game said when it was read. */
function whoseTurn(view: GameView | undefined, game: Game | undefined): number[] {
  if (view?.game.case === undefined) return game?.status === GameStatus.ACTIVE ? [...game.toAct] : [];
  const active = view.game.value.activeSeat;
  return active === undefined ? [] : [active];
}

/** A google.rpc.Status as the ConnectError a Connect call would throw (details kept). */
function errorOf(status: Status): ConnectError {
  const error = new ConnectError(status.message, status.code as Code);
  for (const detail of status.details) {
    error.details.push({ type: detail.typeUrl.slice(detail.typeUrl.lastIndexOf("/") + 1), value: detail.value });
  }
  return error;
}
