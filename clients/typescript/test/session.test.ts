// GameSession over the WebSocket Play channel, against a real server: whole games, a
// spectator, connections cut mid-game (through a proxy) with moves pending, refusals;
// and the channel itself with Node's own WebSocket (no library).

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Code, ConnectError } from "@connectrpc/connect";

import type { GameSession } from "../src/session.js";
import { Ludotheque, ruleCode } from "../src/ludotheque.js";
import type { Event } from "../src/gen/ludotheque/v1/game_pb.js";
import { startProxy, type Proxy } from "./support/proxy.js";
import { startServer, type Server } from "./support/server.js";
import { started, until } from "./support/sessions.js";

/** Plays the seat's first legal move whenever it may, until the game ends; calls
 * `between` after each move. Returns how many moves it played. */
async function playToTheEnd(session: GameSession, between: (moves: number) => void = () => {}): Promise<number> {
  let moves = 0;
  for (;;) {
    const snapshot = await until(
      session,
      (s) => s.gameOver || s.status === "closed" || (s.legalCommands.length > 0 && s.pending.length === 0),
      "a turn",
    );
    if (snapshot.gameOver || snapshot.status === "closed") return moves;
    const result = session.play(snapshot.legalCommands[0]!);
    moves++;
    between(moves);
    const played = await result;
    assert.ok(played.version >= snapshot.version);
  }
}

function versions(events: readonly Event[]): bigint[] {
  return events.map((event) => event.version);
}

describe("GameSession", () => {
  let server: Server;
  let lobby: Ludotheque;
  before(async () => {
    server = await startServer();
    lobby = new Ludotheque({ baseUrl: server.baseUrl });
  });
  after(async () => {
    await server.stop();
  });

  test("a whole game against a bot, while a spectator's session follows in JSON", async () => {
    const { gameId, seatTokens } = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin", bot: "greedy" }]);
    const cleo = started({ baseUrl: server.baseUrl, gameId, token: seatTokens[0] });
    const spectator = started({ baseUrl: server.baseUrl, gameId, format: "json" });
    const first = await until(cleo, (s) => s.legalCommands.length > 0, "Cléo's first turn");
    assert.equal(first.status, "open");
    assert.equal(first.view?.game.case, "mooki"); // the view comes with the turn, unasked
    assert.equal(cleo.getSnapshot(), cleo.getSnapshot()); // the same object until something changes
    let notified = 0;
    const stop = cleo.subscribe(() => notified++);
    const moves = await playToTheEnd(cleo);
    stop();
    assert.ok(moves > 0 && notified >= moves);
    const end = await until(cleo, (s) => s.status === "closed", "the session's end");
    const seen = await until(spectator, (s) => s.status === "closed", "the spectator's end");
    assert.ok(end.gameOver && end.error === undefined && end.pending.length === 0 && end.legalCommands.length === 0);
    assert.deepEqual(end.events, await lobby.withToken(seatTokens[0]).history(gameId)); // all of it, once, in order
    assert.deepEqual(seen.events, await lobby.history(gameId));
    assert.equal(seen.view?.game.case, "mooki");
    assert.equal(end.version, end.events.at(-1)?.version);
  });

  test("speaks the language it is asked for: events and moves in French, the kind's facts too", async () => {
    const french = lobby.withLocale("fr");
    const { gameId, seatTokens } = await french.createGame("mooki", [{ name: "Cléo" }, { name: "Robin", bot: "greedy" }]);
    const cleo = started({ baseUrl: server.baseUrl, gameId, token: seatTokens[0], locale: "fr" });
    const turn = await until(cleo, (s) => s.legalCommands.length > 0, "Cléo's first turn");
    cleo.close();
    assert.equal(turn.events[0]?.description?.key, "mooki.event.game_started_unaged"); // no ages given: none said
    const english = await lobby.withToken(seatTokens[0]).history(gameId);
    assert.notEqual(turn.events[0]?.description?.text, english[0]?.description?.text);
    assert.deepEqual(
      turn.events.map((event) => event.description?.text),
      (await french.withToken(seatTokens[0]).history(gameId)).map((event) => event.description?.text),
    );
    assert.ok(turn.legalCommands.every((command) => command.choices.length > 0 && command.description?.text));
    assert.match(turn.legalCommands[0]!.description!.text, /^Piocher/);
    const kind = await french.getGameKind("mooki");
    assert.equal(kind.name?.text, "L’île des Mookies");
    assert.equal((await lobby.listGameKinds()).find((k) => k.kind === "mooki")?.name?.text, "Mooki Island");
  });

  describe("through a network that drops", () => {
    let proxy: Proxy;
    before(async () => {
      proxy = await startProxy(server.baseUrl);
    });
    after(async () => {
      await proxy.close();
    });

    test("reconnects by itself, resumes from the last version, and plays a pending move once", async () => {
      const { gameId, seatTokens } = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin", bot: "greedy" }]);
      const cleo = started({ baseUrl: proxy.baseUrl, gameId, token: seatTokens[0], backoffMs: 10 });
      const cuts: bigint[] = [];
      // Every third move is sent and its connection cut at once: the move is pending
      // across the drop, sent again with its command id, and answered after the resync.
      const moves = await playToTheEnd(cleo, (played) => {
        if (played % 3 === 0) {
          cuts.push(cleo.getSnapshot().version);
          proxy.cut();
        }
      });
      const end = await until(cleo, (s) => s.status === "closed", "the session's end");
      assert.ok(cuts.length >= 3, `only ${cuts.length} cuts`);
      assert.ok(end.reconnects >= cuts.length && proxy.accepted > cuts.length);
      const history = await lobby.withToken(seatTokens[0]).history(gameId);
      assert.deepEqual(end.events, history);
      assert.deepEqual(versions(end.events), history.map((_, index) => BigInt(index + 1)));
      // Each of Cléo's moves was played once: one command id per move, however often sent.
      const hers = new Set(history.filter((event) => event.seat === 0 && event.commandId).map((e) => e.commandId));
      assert.equal(hers.size, moves);
    });

  });

  test("gives up after maxRetries failed connections in a row", async () => {
    const nowhere = "http://127.0.0.1:9"; // the discard port: every connection is refused
    const session = started({ baseUrl: nowhere, gameId: "any", maxRetries: 2, backoffMs: 1 });
    const end = await until(session, (s) => s.status === "closed", "giving up");
    assert.equal(end.error?.code, Code.Unavailable);
    assert.equal(end.reconnects, 2);
  });

  test("a refused move rejects with the rule it broke, and the session goes on", async () => {
    const { gameId, seatTokens } = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin" }]);
    const robin = started({ baseUrl: server.baseUrl, gameId, token: seatTokens[1] });
    await until(robin, (s) => s.view !== undefined, "Robin's view");
    const draw = { game: { case: "mooki", value: { action: { case: "draw", value: { pile: 0 } } } } } as const;
    const refused = robin.play(draw, { commandId: "too-early" });
    assert.equal(robin.getSnapshot().pending[0]?.commandId, "too-early"); // pending until its result
    const error = await refused.then(
      () => assert.fail("an illegal move was played"),
      (reason: unknown) => ConnectError.from(reason),
    );
    assert.equal(error.code, Code.FailedPrecondition);
    assert.equal(ruleCode(error), "not_your_turn");
    assert.equal(robin.getSnapshot().pending.length, 0);
    assert.equal(robin.getSnapshot().lastResult?.commandId, "too-early");
    await lobby.withToken(seatTokens[0]).act(gameId, draw); // Cléo plays: Robin's session sees it
    await until(robin, (s) => s.version === 2n, "Cléo's move");
    robin.close();
    assert.equal(robin.getSnapshot().status, "closed");
    await assert.rejects(robin.play(draw), (reason: unknown) => ConnectError.from(reason).code === Code.Canceled);
  });

  test("a bad token closes the session for good", async () => {
    const { gameId } = await lobby.createGame("mooki", [{ name: "A" }, { name: "B" }]);
    const session = started({ baseUrl: server.baseUrl, gameId, token: "0.forged", backoffMs: 1 });
    const end = await until(session, (s) => s.status === "closed", "the refusal");
    assert.equal(end.error?.code, Code.Unauthenticated);
    assert.equal(end.reconnects, 0);
  });
});

describe("the WebSocket Play channel, with Node's own WebSocket", () => {
  let server: Server;
  before(async () => {
    server = await startServer({ LUDOTHEQUE_PLAY_JOIN_TIMEOUT: "0.5" });
  });
  after(async () => {
    await server.stop();
  });

  function open(protocol?: string, path = "/v1/play"): WebSocket {
    return new WebSocket(server.baseUrl.replace("http:", "ws:") + path, protocol);
  }

  function closed(socket: WebSocket): Promise<CloseEvent> {
    return new Promise((resolve) => socket.addEventListener("close", resolve, { once: true }));
  }

  test("JSON frames with ludotheque.v1.json: the join, then the game's events", async () => {
    const lobby = new Ludotheque({ baseUrl: server.baseUrl });
    const { gameId, seatTokens } = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin" }]);
    const socket = open("ludotheque.v1.json");
    const first = new Promise<string>((resolve) => socket.addEventListener("message", (m) => resolve(String(m.data)), { once: true }));
    await new Promise((resolve) => socket.addEventListener("open", resolve, { once: true }));
    assert.equal(socket.protocol, "ludotheque.v1.json");
    socket.send(JSON.stringify({ join: { gameId, token: seatTokens[0] } }));
    const message = JSON.parse(await first) as { events: { version: string }[]; turn: { legalCommands: unknown[] } };
    assert.deepEqual(message.events.map((event) => event.version), ["1"]);
    assert.ok(message.turn.legalCommands.length > 0); // Cléo's turn
    socket.close(1000);
    assert.equal((await closed(socket)).code, 1000);
  });

  test("a session that never joins is closed with 4004 and a reason", async () => {
    const socket = open();
    const end = await closed(socket);
    assert.equal(end.code, 4000 + Code.DeadlineExceeded);
    assert.match(end.reason, /join/);
  });

  test("the echo endpoint sends every frame back", async () => {
    const socket = open(undefined, "/v1/diagnostics/echo");
    await new Promise((resolve) => socket.addEventListener("open", resolve, { once: true }));
    const echoed = new Promise<string>((resolve) => socket.addEventListener("message", (m) => resolve(String(m.data)), { once: true }));
    socket.send("ping?");
    assert.equal(await echoed, "ping?");
    socket.close(1000);
    await closed(socket);
  });
});
