// GameSession: one seat's (or a spectator's) live game over the WebSocket Play channel
// (GET /v1/play), as a small external store a UI reads from. It holds the current view,
// the legal moves and the event log, applies what arrives, marks a move pending until
// its result, and reconnects by itself, resuming from the last version it holds (the
// server sends nothing twice and skips nothing). No framework: subscribe/getSnapshot is
// what React's useSyncExternalStore takes, and Vue or Svelte wrap it in one line.

import { create, fromBinary, fromJsonString, toBinary, toJsonString } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";

import type { Status } from "./gen/google/rpc/status_pb.js";
import type { Command, Event, GameView, SeatClock } from "./gen/ludotheque/v1/game_pb.js";
import { PlayRequestSchema, PlayResponseSchema } from "./gen/ludotheque/v1/game_service_pb.js";
import type { PlayRematch, PlayRequest, PlayResponse, PlayResult } from "./gen/ludotheque/v1/game_service_pb.js";
import { type KnownVersions, MemoryKnownVersions } from "./known.js";
import { newCommandId } from "./ids.js";
import type { CommandInit } from "./ludotheque.js";

/** The WebSocket subprotocols of GET /v1/play. */
export const PLAY_PROTOCOLS = { binary: "ludotheque.v1.proto", json: "ludotheque.v1.json" } as const;

/** Where the session stands: connecting (the first time), open, reconnecting after a
 * drop, or closed (by `close()`, after the game's end, or on an error that retrying
 * cannot mend: see `error`). A session that follows `presence` stays open after the
 * game's end, to hear of its rematch, until `close()`. */
export type SessionStatus = "connecting" | "open" | "reconnecting" | "closed";

/** A move sent and not yet answered. */
export interface PendingMove {
  readonly commandId: string;
  readonly command: Command;
}

/** What the session holds, as one immutable value: a new object after every change, so
 * `snapshot !== previous` says something changed. */
export interface GameSnapshot {
  readonly status: SessionStatus;
  /** The version of the last event received (0n before any). */
  readonly version: bigint;
  /** Every event received, in order, whole (as the server sent them, every field kept). */
  readonly events: readonly Event[];
  /** What this caller sees, as of `version` (undefined until the game first comes to rest). */
  readonly view: GameView | undefined;
  /** The moves this seat may make now: empty when it is not its turn (or for a spectator). */
  readonly legalCommands: readonly Command[];
  /** Moves sent and not yet answered: show them as pending. */
  readonly pending: readonly PendingMove[];
  /** The last move's result (its `error` set when it was refused). */
  readonly lastResult: PlayResult | undefined;
  /** True once the game's last event has come. */
  readonly gameOver: boolean;
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
  /** The seat token; none: a spectator. Sent in the join message, never in the URL. */
  token?: string;
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
  /** Also receive who is connected (`onlineSeats`) and, once the game is over, its
   * `rematch`. Whether or not, the seat is online while the session is open. */
  presence?: boolean;
  /** Where the highest version given of each game is kept: the join says it
   * (`knownVersion`, known.ts), whichever server or call gave it, and the session
   * notes what it is given. Default: the session's own, in memory; share a
   * Ludotheque's `known` (or one kept in localStorage) to carry it across. */
  known?: KnownVersions;
}

export interface PlayOptions {
  /** The idempotency key (default: 128 random bits): a move resent after a drop is played once. */
  commandId?: string;
  /** Play only if the game is still at this version (else refused with `Code.Aborted`). */
  expectedVersion?: bigint;
}

// Close codes after which reconnecting cannot help: 4000 + these gRPC codes.
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

/** A live game for one caller over the WebSocket Play channel. It connects at once. */
export class GameSession {
  private snapshot: GameSnapshot = {
    status: "connecting",
    version: 0n,
    events: [],
    view: undefined,
    legalCommands: [],
    pending: [],
    lastResult: undefined,
    gameOver: false,
    error: undefined,
    reconnects: 0,
    onlineSeats: [],
    clock: undefined,
    clockReceivedAt: 0,
    rematch: undefined,
  };
  private readonly listeners = new Set<() => void>();
  private readonly waiting = new Map<string, Waiting>();
  private socket: WebSocket | undefined;
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly url: string;
  private readonly WebSocketClass: WebSocketClass;
  private readonly json: boolean;
  /** The highest version of each game given to this session (and whoever shares it). */
  readonly known: KnownVersions;

  constructor(readonly options: GameSessionOptions) {
    const url = new URL("/v1/play", options.baseUrl);
    url.protocol = url.protocol === "https:" || url.protocol === "wss:" ? "wss:" : "ws:";
    this.url = url.toString();
    this.json = options.format === "json";
    this.known = options.known ?? new MemoryKnownVersions();
    const found = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketClass }).WebSocket;
    if (found === undefined) throw new Error("no WebSocket class: pass options.WebSocket (Node 20: --experimental-websocket)");
    this.WebSocketClass = found;
    this.connect();
  }

  /** Calls `listener` after every change; returns the function that stops it. (An arrow
   * property: pass it unbound, e.g. `useSyncExternalStore(session.subscribe, session.getSnapshot)`.) */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The current state, the same object until something changes. */
  readonly getSnapshot = (): GameSnapshot => this.snapshot;

  /** Plays a move for this seat: pending at once, resolved with its result (after the
   * events it caused), rejected with a ConnectError if the server refuses it (an illegal
   * move: `ruleCode(error)` names the rule) or the session closes first. A move whose
   * connection drops is sent again with its command id after reconnecting: played once. */
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
    const sent = request.message.value;
    const move = { commandId: sent.commandId, command: request.message.value.command };
    const answered = new Promise<PlayResult>((resolve, reject) => {
      this.waiting.set(move.commandId, { request, resolve, reject });
    });
    this.update({ pending: [...this.snapshot.pending, move] });
    if (this.snapshot.status === "open") this.send(request);
    return answered;
  }

  /** Ends the session: closes the socket, rejects pending moves, stops reconnecting. */
  close(): void {
    this.finish(undefined);
  }

  // --- the connection -------------------------------------------------------------------

  private connect(): void {
    const protocol = this.json ? PLAY_PROTOCOLS.json : PLAY_PROTOCOLS.binary;
    const socket = new this.WebSocketClass(this.url, protocol);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      // From the version after the last one held: nothing twice, nothing skipped. The
      // server answers with the view and, if it is this seat's turn, its legal moves.
      this.send(
        create(PlayRequestSchema, {
          message: {
            case: "join",
            value: {
              gameId: this.options.gameId,
              token: this.options.token ?? "",
              fromVersion: this.snapshot.version + 1n,
              knownVersion: this.known.get(this.options.gameId),
              viewUpdates: true,
              locale: this.options.locale ?? "",
              presence: this.options.presence ?? false,
            },
          },
        }),
      );
      for (const move of this.waiting.values()) this.send(move.request); // the same command ids: played once
      this.update({ status: "open", legalCommands: [] });
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
    if (this.snapshot.status === "closed") return;
    const grpcCode = code - ERROR_CLOSE_BASE;
    const error =
      this.snapshot.error?.code === grpcCode && code > ERROR_CLOSE_BASE
        ? this.snapshot.error // the server's last message said why, with its details
        : new ConnectError(reason || `the connection closed (${code})`, code > ERROR_CLOSE_BASE ? grpcCode : Code.Unavailable);
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
      if (this.snapshot.status !== "closed") this.connect();
    }, pause);
  }

  private finish(error: ConnectError | undefined): void {
    if (this.snapshot.status === "closed") return;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    const socket = this.socket;
    this.socket = undefined;
    if (socket !== undefined && socket.readyState <= 1) socket.close(1000);
    const why = error ?? new ConnectError("the session was closed", Code.Canceled);
    for (const move of this.waiting.values()) move.reject(why);
    this.waiting.clear();
    this.update({ status: "closed", error, pending: [], legalCommands: [] });
  }

  // --- messages -------------------------------------------------------------------------

  private receive(message: PlayResponse): void {
    const change: Partial<{ -readonly [K in keyof GameSnapshot]: GameSnapshot[K] }> = {};
    const gameId = this.options.gameId;
    for (const event of message.events) this.known.saw(gameId, event.version);
    if (message.result !== undefined) this.known.saw(gameId, message.result.version);
    if (message.turn !== undefined) this.known.saw(gameId, message.turn.version);
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
    if (message.rematch !== undefined) change.rematch = message.rematch;
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
    // Nothing more will come (but a session that follows presence waits for a rematch).
    if (this.snapshot.gameOver && this.waiting.size === 0 && !this.options.presence) this.finish(undefined);
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

  private update(change: Partial<GameSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...change };
    for (const listener of [...this.listeners]) listener();
  }
}

/** A google.rpc.Status as the ConnectError a Connect call would throw (details kept). */
function errorOf(status: Status): ConnectError {
  const error = new ConnectError(status.message, status.code as Code);
  for (const detail of status.details) {
    error.details.push({ type: detail.typeUrl.slice(detail.typeUrl.lastIndexOf("/") + 1), value: detail.value });
  }
  return error;
}

