// The wrapper rides out a flaky network: following a game resumes after dropped
// connections from the last version seen, missing and repeating nothing; a move whose
// answer was lost is resent with its command id and played once.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { fromBinary, fromJsonString } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";

import { Ludotheque } from "../src/ludotheque.js";
import { GameStatus } from "../src/gen/ludotheque/v1/game_pb.js";
import { StreamEventsRequestSchema } from "../src/gen/ludotheque/v1/game_service_pb.js";
import { collect } from "./support/games.js";
import { startServer, type Server } from "./support/server.js";

/** A fetch whose first `drops` event streams break, like a lost connection, after their
 * first whole message and a few bytes of the next. Other calls pass through. It notes
 * the version each stream was asked to start from. */
function flakyFetch(drops: number): { fetch: typeof globalThis.fetch; fromVersions: bigint[] } {
  const fromVersions: bigint[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    if (!String(input).endsWith("/StreamEvents") || response.body === null) return response;
    fromVersions.push(requestedVersion(init));
    if (fromVersions.length > drops) return response;
    return new Response(cutAfterFirstMessage(response.body), { status: response.status, headers: response.headers });
  };
  return { fetch, fromVersions };
}

function requestedVersion(init: RequestInit | undefined): bigint {
  const body = init?.body;
  assert.ok(body instanceof Uint8Array);
  const message = body.subarray(5); // after the envelope's prefix
  const json = new Headers(init?.headers).get("content-type") === "application/connect+json";
  const request = json
    ? fromJsonString(StreamEventsRequestSchema, new TextDecoder().decode(message))
    : fromBinary(StreamEventsRequestSchema, message);
  return request.fromVersion;
}

function cutAfterFirstMessage(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let buffered = new Uint8Array(0);
  let cut = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (cut) {
        // Only now: erroring a stream discards the chunks still queued in it.
        controller.error(new TypeError("the network dropped the connection"));
        void reader.cancel();
        return;
      }
      const { done, value } = await reader.read();
      if (!done) buffered = new Uint8Array([...buffered, ...value]);
      if (buffered.length >= 5) {
        const length = new DataView(buffered.buffer, buffered.byteOffset).getUint32(1);
        const end = 5 + length + 3; // the first message, then part of the second one's envelope
        if (buffered.length >= end || done) {
          controller.enqueue(buffered.slice(0, Math.min(end, buffered.length)));
          cut = true;
          return;
        }
      }
      if (done) controller.close();
    },
  });
}

describe("following a game", () => {
  let server: Server;
  let gameId: string;
  before(async () => {
    server = await startServer();
    const lobby = new Ludotheque({ baseUrl: server.baseUrl });
    const created = await lobby.createGame("mooki", [
      { name: "Ada", bot: "greedy" },
      { name: "Bo", bot: "random" },
    ]);
    assert.equal(created.game?.status, GameStatus.FINISHED);
    gameId = created.gameId;
  });
  after(async () => {
    await server.stop();
  });

  for (const useBinaryFormat of [false, true]) {
    test(`resumes after dropped connections from the last version seen (${useBinaryFormat ? "protobuf" : "JSON"})`, async () => {
      const flaky = flakyFetch(3);
      const retried: ConnectError[] = [];
      const spectator = new Ludotheque({ baseUrl: server.baseUrl, useBinaryFormat, fetch: flaky.fetch });
      const events = await collect(
        spectator.follow(gameId, { backoffMs: 1, onRetry: (error) => retried.push(error) }),
      );
      assert.deepEqual(events, await spectator.history(gameId));
      assert.deepEqual(
        events.map((event) => event.version),
        events.map((_, index) => BigInt(index + 1)),
      );
      assert.equal(retried.length, 3);
      assert.ok(retried.every((error) => error.code === Code.Unknown));
      assert.deepEqual(flaky.fromVersions, [1n, 2n, 3n, 4n]); // each resumed after the last event seen
    });
  }

  test("starts at a version", async () => {
    const spectator = new Ludotheque({ baseUrl: server.baseUrl });
    const events = await collect(spectator.follow(gameId, { fromVersion: 5n }));
    assert.equal(events[0]?.version, 5n);
    assert.deepEqual(events, (await spectator.history(gameId)).slice(4));
  });

  test("gives up after maxRetries failures in a row", async () => {
    const nowhere = new Ludotheque({ baseUrl: "http://127.0.0.1:9" }); // the discard port: refused
    let attempts = 0;
    const failure = await collect(
      nowhere.follow(gameId, { maxRetries: 2, backoffMs: 1, onRetry: () => attempts++ }),
    ).then(
      () => assert.fail("following a game on no server succeeded"),
      (reason: unknown) => ConnectError.from(reason),
    );
    assert.equal(failure.code, Code.Unavailable); // said as such: nothing answers there
    assert.match(failure.message, /Nothing answers at http:\/\/127\.0\.0\.1:9: /);
    assert.equal(attempts, 2);
  });

  test("stops when its signal aborts, without retrying", async () => {
    const lobby = new Ludotheque({ baseUrl: server.baseUrl });
    const live = await lobby.createGame("mooki", [{ name: "A" }, { name: "B" }]);
    const controller = new AbortController();
    let retries = 0;
    const received: bigint[] = [];
    const failure = await (async () => {
      try {
        for await (const event of lobby.follow(live.gameId, { signal: controller.signal, onRetry: () => retries++ })) {
          received.push(event.version);
          controller.abort(); // after the deal, while the stream waits for the next move
        }
      } catch (reason) {
        return ConnectError.from(reason);
      }
      return assert.fail("the iteration ended by itself");
    })();
    assert.equal(failure.code, Code.Canceled);
    assert.deepEqual(received, [1n]);
    assert.equal(retries, 0);
  });
});

describe("acting through an unreliable network", () => {
  let server: Server;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server.stop();
  });

  test("a move whose answer was lost is resent with the same command id and played once", async () => {
    const sent: string[] = [];
    // The first SubmitCommand reaches the server, but its answer is lost: a proxy says 503.
    const losingFirstAnswer: typeof globalThis.fetch = async (input, init) => {
      const response = await globalThis.fetch(input, init);
      if (!String(input).endsWith("/SubmitCommand")) return response;
      assert.ok(init?.body instanceof Uint8Array);
      sent.push((JSON.parse(new TextDecoder().decode(init.body)) as { commandId: string }).commandId);
      if (sent.length > 1) return response;
      const body = JSON.stringify({ code: "unavailable", message: "the proxy lost the answer" });
      return new Response(body, { status: 503, headers: { "content-type": "application/json" } });
    };
    const lobby = new Ludotheque({ baseUrl: server.baseUrl, fetch: losingFirstAnswer });
    const created = await lobby.createGame("mooki", [{ name: "A" }, { name: "B" }]);
    const player = lobby.withToken(created.seatTokens[0]);
    const draw = { game: { case: "mooki", value: { action: { case: "draw", value: { pile: 0 } } } } } as const;
    const result = await player.act(created.gameId, draw);
    assert.equal(sent.length, 2);
    assert.equal(sent[0], sent[1]);
    assert.equal(result.replayed, true); // the server had played it the first time
    assert.equal(result.version, 2n);
    assert.equal((await player.getGame(created.gameId)).version, 2n);
  });
});
