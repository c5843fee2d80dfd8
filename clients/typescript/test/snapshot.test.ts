// What a page draws from a GameSession's snapshot alone (the seats with their names and
// presence, whose turn, the outcome), its life with a framework (connected while
// someone listens, StrictMode's quick unsubscribe and subscribe again, a seat kept
// across a reload), misconfiguration said at once, and the trace a session's calls
// share; against a real server.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Code, ConnectError } from "@connectrpc/connect";

import { requestInfo, Ludotheque, ruleCode } from "../src/ludotheque.js";
import { memorySeats, storageSeats, type SeatStorage } from "../src/seats.js";
import { GameSession } from "../src/session.js";
import { newTraceparent, traceIdOf } from "../src/trace.js";
import { ADMIN_TOKEN, startServer, type Server } from "./support/server.js";
import { started, until } from "./support/sessions.js";

const PAGE = "http://127.0.0.1:5173"; // the origin the server lists
const ELSEWHERE = "http://localhost:5173"; // the same page under another name: not listed

/** A WebSocket class that counts the sockets it opens, sending `origin` as a browser would. */
function countingSockets(origin?: string): { urls: string[]; WebSocket: typeof WebSocket } {
  const urls: string[] = [];
  class Counted extends WebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      // Node's WebSocket (undici) takes headers in a second argument of its own.
      super(url, (origin === undefined ? protocols : { protocols, headers: { origin } }) as string[]);
      urls.push(String(url));
    }
  }
  return { urls, WebSocket: Counted };
}

/** Once the timers already due at this moment have run. */
function afterThisTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function accessLines(log: string): Record<string, unknown>[] {
  return log
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line["logger"] === "ludotheque.access");
}

describe("a GameSession's snapshot", () => {
  let server: Server;
  let lobby: Ludotheque;
  before(async () => {
    server = await startServer({ LUDOTHEQUE_CORS_ORIGINS: PAGE, LUDOTHEQUE_LOG_FORMAT: "json" });
    lobby = new Ludotheque({ baseUrl: server.baseUrl });
  });
  after(async () => {
    await server.stop();
  });

  test("is enough to draw the game: the seats, whose turn, this seat, and the outcome before it closes", async () => {
    const { gameId, seatTokens } = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin", bot: "greedy" }]);
    const cleo = started({ baseUrl: server.baseUrl, gameId, token: seatTokens[0] });
    const first = await until(cleo, (s) => s.legalCommands.length > 0 && s.seats.length > 0, "Cléo's turn, seats read");
    assert.equal(first.kind, "mooki");
    assert.equal(first.mySeat, 0);
    assert.deepEqual(
      first.seats.map(({ index, name, bot, you, online }) => ({ index, name, bot, you, online })),
      [
        { index: 0, name: "Cléo", bot: "", you: true, online: undefined }, // presence not asked for
        { index: 1, name: "Robin", bot: "greedy", you: false, online: undefined },
      ],
    );
    assert.deepEqual(first.toAct, [0]);
    assert.ok(first.seats[0]!.toAct && !first.seats[1]!.toAct);
    let snapshot = first;
    while (!snapshot.gameOver) {
      assert.deepEqual(snapshot.toAct, [0], "Cléo's moves are offered on her turn only");
      await cleo.play(snapshot.legalCommands[0]!);
      snapshot = await until(cleo, (s) => s.gameOver || (s.legalCommands.length > 0 && s.pending.length === 0), "a turn");
    }
    const end = await until(cleo, (s) => s.status === "closed", "the end");
    assert.ok(end.outcome?.summary, "the outcome, described"); // read before the session closed
    assert.deepEqual(end.outcome, (await lobby.getGame(gameId)).outcome);
    assert.deepEqual(end.toAct, []);
    assert.ok(end.seats.every((seat) => !seat.toAct));
    assert.equal(end.error, undefined);
  });

  test("with presence, each seat says whether its player is connected", async () => {
    const { gameId, seatTokens } = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin" }]);
    const cleo = started({ baseUrl: server.baseUrl, gameId, token: seatTokens[0], presence: true });
    try {
      const alone = await until(cleo, (s) => s.seats.length === 2 && s.seats[0]!.online === true, "Cléo online");
      assert.equal(alone.seats[1]!.online, false);
      const robin = started({ baseUrl: server.baseUrl, gameId, token: seatTokens[1] });
      await until(cleo, (s) => s.seats[1]!.online === true, "Robin online");
      robin.close();
      await until(cleo, (s) => s.seats[1]!.online === false, "Robin gone");
    } finally {
      cleo.close();
    }
  });

  test("a table event reads the seats again: a player who joins is named", async () => {
    const created = await lobby.createGame("mooki", [{ name: "Cléo" }, { open: true }]);
    const cleo = started({ baseUrl: server.baseUrl, gameId: created.gameId, token: created.seatTokens[0] });
    try {
      const waiting = await until(cleo, (s) => s.seats.length === 2, "the seats");
      assert.ok(waiting.seats[1]!.seat.open);
      await lobby.joinGame(created.game!.joinCode, "Robin");
      const joined = await until(cleo, (s) => s.seats[1]?.name === "Robin", "Robin named");
      assert.ok(!joined.seats[1]!.seat.open);
      assert.deepEqual((await until(cleo, (s) => s.toAct.length > 0, "the deal")).toAct, [0]);
    } finally {
      cleo.close();
    }
  });
});

describe("a GameSession's life beside a framework", () => {
  let server: Server;
  let lobby: Ludotheque;
  before(async () => {
    server = await startServer({ LUDOTHEQUE_CORS_ORIGINS: PAGE });
    lobby = new Ludotheque({ baseUrl: server.baseUrl });
  });
  after(async () => {
    await server.stop();
  });

  test("connects on the first subscribe, not before, and lets go after the last unsubscribe", async () => {
    const { gameId, seatTokens } = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin" }]);
    const sockets = countingSockets();
    const session = new GameSession({ baseUrl: server.baseUrl, gameId, token: seatTokens[0], WebSocket: sockets.WebSocket });
    assert.equal(session.getSnapshot().status, "idle");
    assert.equal(sockets.urls.length, 0); // made, not connected: a render may make one freely
    // React's StrictMode: subscribe, unsubscribe and subscribe again at once.
    session.subscribe(() => {})();
    const stop = session.subscribe(() => {});
    const turn = await until(session, (s) => s.legalCommands.length > 0, "Cléo's turn");
    assert.equal(sockets.urls.length, 1, "one socket, however often it was subscribed");
    stop();
    assert.equal(session.getSnapshot().status, "open"); // not at once: a framework may subscribe again
    await afterThisTask(); // the session's own timer was set first, so it has run
    assert.equal(session.getSnapshot().status, "idle");
    assert.deepEqual(session.getSnapshot().legalCommands, []);
    // Nobody listens: a move made meanwhile (by another client) comes on resuming, once.
    await lobby.withToken(seatTokens[0]).act(gameId, turn.legalCommands[0]!);
    const resumed = await until(session, (s) => s.version > turn.version && s.status === "open", "resumed");
    assert.equal(sockets.urls.length, 2);
    assert.equal(resumed.reconnects, 0, "letting go is no drop");
    assert.deepEqual(resumed.events, await lobby.withToken(seatTokens[0]).history(gameId));
    session.close();
    assert.equal(session.getSnapshot().status, "closed");
    session.subscribe(() => {}); // closed for good: nothing connects again
    assert.equal(sockets.urls.length, 2);
  });

  test("a seat store keeps the seat across a reload, and the rematch's", async () => {
    const backing = new Map<string, string>();
    const storage: SeatStorage = {
      getItem: (key) => backing.get(key) ?? null,
      setItem: (key, value) => void backing.set(key, value),
      removeItem: (key) => void backing.delete(key),
    };
    const seats = storageSeats(storage);
    const { gameId, seatTokens } = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin" }]);
    const before = new GameSession({ baseUrl: server.baseUrl, gameId, token: seatTokens[0], seatStore: seats });
    assert.equal(backing.get(`ludotheque.seat.${gameId}`), seatTokens[0]);
    before.close();
    const reloaded = started({ baseUrl: server.baseUrl, gameId, seatStore: seats }); // no token given
    assert.equal(reloaded.token, seatTokens[0]);
    assert.equal((await until(reloaded, (s) => s.mySeat !== undefined, "its seat")).mySeat, 0);
    reloaded.close();
    const nobody = started({ baseUrl: server.baseUrl, gameId, seatStore: memorySeats() });
    assert.equal(nobody.token, undefined);
    assert.equal((await until(nobody, (s) => s.seats.length > 0, "the seats")).mySeat, undefined); // a spectator
    nobody.close();

    const finished = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Bot", bot: "random" }]);
    const cleo = lobby.withToken(finished.seatTokens[0]);
    const playing = started({
      baseUrl: server.baseUrl,
      gameId: finished.gameId,
      token: finished.seatTokens[0],
      seatStore: seats,
      presence: true,
    });
    try {
      await cleo.takeOverSeat(finished.gameId, { bot: "random" });
      await until(playing, (s) => s.gameOver && s.outcome !== undefined, "the end");
      const rematch = await cleo.playAgain(finished.gameId);
      await until(playing, (s) => s.rematch !== undefined, "the rematch");
      assert.equal(seats.get(rematch.gameId), rematch.seatToken);
    } finally {
      playing.close();
    }
  });

  test("an origin the server does not list is said at once, with the origin and the setting, and not retried", async () => {
    const { gameId, seatTokens } = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin" }]);
    const sockets = countingSockets(ELSEWHERE);
    const session = started({ baseUrl: server.baseUrl, gameId, token: seatTokens[0], WebSocket: sockets.WebSocket });
    const end = await until(session, (s) => s.status === "closed", "the refusal");
    assert.equal(end.error?.code, Code.PermissionDenied);
    assert.match(end.error.message, /localhost:5173/);
    assert.match(end.error.message, /--cors-origins/);
    assert.match(end.error.message, /LUDOTHEQUE_CORS_ORIGINS/);
    assert.equal(end.reconnects, 0);
    assert.equal(sockets.urls.length, 1);
    const listed = countingSockets(PAGE);
    const welcome = started({ baseUrl: server.baseUrl, gameId, token: seatTokens[0], WebSocket: listed.WebSocket });
    await until(welcome, (s) => s.legalCommands.length > 0, "a listed origin plays");
    welcome.close();
  });

  test("a wrong or revoked token is said at once, and not retried", async () => {
    const { gameId, seatTokens } = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin" }]);
    await lobby.withToken(ADMIN_TOKEN).client.rotateSeatToken({ gameId, seat: 0 }); // the first token stops working
    for (const token of ["0.forged", seatTokens[0]!]) {
      const session = started({ baseUrl: server.baseUrl, gameId, token, backoffMs: 1 });
      const end = await until(session, (s) => s.status === "closed", "the refusal");
      assert.equal(end.error?.code, Code.Unauthenticated, token);
      assert.ok(end.error.message.length > 0);
      assert.equal(end.reconnects, 0, token);
    }
  });
});

describe("traces", () => {
  let server: Server;
  before(async () => {
    server = await startServer({ LUDOTHEQUE_LOG_FORMAT: "json" });
  });
  after(async () => {
    await server.stop();
  });

  test("every call sends a traceparent: its own trace, in the server's logs and in a refusal's details", async () => {
    const lobby = new Ludotheque({ baseUrl: server.baseUrl });
    const { gameId, seatTokens } = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin" }]);
    const robin = lobby.withToken(seatTokens[1]);
    const draw = { game: { case: "mooki", value: { action: { case: "draw", value: { pile: 0 } } } } } as const;
    const refused = await robin.act(gameId, draw).then(
      () => assert.fail("not Robin's turn"),
      (reason: unknown) => ConnectError.from(reason),
    );
    const info = requestInfo(refused);
    assert.match(info?.traceId ?? "", /^[0-9a-f]{32}$/);
    const logged = (log: string): boolean =>
      accessLines(log).some((l) => l["request_id"] === info?.requestId && l["trace_id"] === info?.traceId);
    await server.logged(logged, "the refused call's line with its trace id");
    const mine = "4bf92f3577b34da6a3ce929d0e0e4736";
    const own = new Ludotheque({ baseUrl: server.baseUrl, traceparent: () => newTraceparent(mine) });
    await own.getGame(gameId);
    const read = (log: string): boolean =>
      accessLines(log).some((l) => l["trace_id"] === mine && String(l["method"]).endsWith("GetGame"));
    await server.logged(read, "a call in the trace given");
    assert.equal(traceIdOf("00-00000000000000000000000000000000-00f067aa0ba902b7-01"), undefined);
  });

  test("a session is one trace: its socket, its reads, and each move a request of its own", async () => {
    const lobby = new Ludotheque({ baseUrl: server.baseUrl });
    const { gameId, seatTokens } = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin" }]);
    const robin = started({ baseUrl: server.baseUrl, gameId, token: seatTokens[1] });
    await until(robin, (s) => s.seats.length === 2, "the seats");
    const draw = { game: { case: "mooki", value: { action: { case: "draw", value: { pile: 0 } } } } } as const;
    const errors: ConnectError[] = [];
    for (const commandId of ["early-1", "early-2"]) {
      errors.push(await robin.play(draw, { commandId }).then(() => assert.fail("not Robin's turn"), ConnectError.from));
    }
    robin.close();
    assert.deepEqual(errors.map(ruleCode), ["not_your_turn", "not_your_turn"]);
    const [first, second] = errors.map(requestInfo);
    assert.ok(robin.traceId !== undefined && first?.traceId === robin.traceId && second?.traceId === robin.traceId);
    assert.notEqual(first?.requestId, second?.requestId);
    const session = first!.requestId.replace(/\.1$/, "");
    assert.equal(second?.requestId, `${session}.2`);
    const inTrace = (method: string) => (log: string) =>
      accessLines(log).some((l) => l["trace_id"] === robin.traceId && String(l["method"]).endsWith(method));
    await server.logged(inTrace("GetGame"), "the session's read, in its trace");
    await server.logged(inTrace("GET /v1/play"), "the session's socket, in its trace (written when it ends)");
  });
});
