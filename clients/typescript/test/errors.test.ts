// Errors surface as ConnectErrors with the codes of the API's contract (the same as
// over gRPC and REST), in both wire formats.

import assert from "node:assert/strict";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";

import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";

import { Ludotheque, requestInfo, ruleCode } from "../src/ludotheque.js";
import { BadRequestSchema, ErrorInfoSchema } from "../src/gen/google/rpc/error_details_pb.js";
import { GameService } from "../src/gen/ludotheque/v1/game_service_pb.js";
import { startServer, type Server } from "./support/server.js";

/** The ConnectError `call` fails with (the test fails if it succeeds or throws something else). */
async function failure(call: () => Promise<unknown>): Promise<ConnectError> {
  try {
    await call();
  } catch (reason) {
    assert.ok(reason instanceof ConnectError, `not a ConnectError: ${String(reason)}`);
    return reason;
  }
  assert.fail("the call succeeded");
}

const DRAW = { game: { case: "mooki", value: { action: { case: "draw", value: { pile: 1 } } } } } as const;
const PLACE = { game: { case: "mooki", value: { action: { case: "place", value: { side: 1 } } } } } as const;

describe("errors over Connect", () => {
  let server: Server;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server.stop();
  });

  for (const useBinaryFormat of [false, true]) {
    const format = useBinaryFormat ? "protobuf" : "JSON";

    test(`each error has its code and details (${format})`, async () => {
      const lobby = new Ludotheque({ baseUrl: server.baseUrl, useBinaryFormat });
      const created = await lobby.createGame("mooki", [
        { name: "Cléo", age: 6 },
        { name: "Robin", age: 38 },
      ]);
      const gameId = created.gameId;
      const cleo = lobby.withToken(created.seatTokens[0]);
      const robin = lobby.withToken(created.seatTokens[1]);

      const unknownKind = await failure(() => lobby.createGame("chess", [{ name: "A" }, { name: "B" }]));
      assert.equal(unknownKind.code, Code.InvalidArgument);
      const [badRequest] = unknownKind.findDetails(BadRequestSchema);
      assert.equal(badRequest?.fieldViolations[0]?.field, "kind");

      const notYourTurn = await failure(() => robin.act(gameId, DRAW));
      assert.equal(notYourTurn.code, Code.FailedPrecondition);
      assert.equal(ruleCode(notYourTurn), "not_your_turn");
      assert.match(requestInfo(notYourTurn)?.requestId ?? "", /^[0-9a-f]{16}$/);
      assert.equal(notYourTurn.findDetails(ErrorInfoSchema)[0]?.reason, "NOT_YOUR_TURN");

      assert.equal((await failure(() => lobby.getGame("no-such-game"))).code, Code.NotFound);
      const stranger = lobby.withToken("0.not-a-valid-signature");
      assert.equal((await failure(() => stranger.getGame(gameId))).code, Code.Unauthenticated);
      assert.equal((await failure(() => robin.act(gameId, DRAW, { seat: 0 }))).code, Code.PermissionDenied);

      await cleo.act(gameId, DRAW, { commandId: "cleo-1" });
      const reused = await failure(() => cleo.act(gameId, PLACE, { commandId: "cleo-1" }));
      assert.equal(reused.code, Code.AlreadyExists);
      const stale = await failure(() => cleo.act(gameId, PLACE, { expectedVersion: 1n }));
      assert.equal(stale.code, Code.Aborted);
      assert.equal(stale.findDetails(ErrorInfoSchema)[0]?.metadata["current_version"], "2");
      assert.equal((await cleo.getGame(gameId)).version, 2n); // none of it changed the game
    });

    test(`a stream's errors come at its end, as ConnectErrors (${format})`, async () => {
      const client = createClient(GameService, createConnectTransport({ baseUrl: server.baseUrl, useBinaryFormat }));
      const notFound = await failure(async () => {
        for await (const response of client.streamEvents({ gameId: "no-such-game" })) assert.fail(`${response}`);
      });
      assert.equal(notFound.code, Code.NotFound);

      const created = await client.createGame({ kind: "mooki", seats: [{ name: "A" }, { name: "B" }] });
      const received: bigint[] = [];
      const late = await failure(async () => {
        const events = client.streamEvents({ gameId: created.gameId }, { timeoutMs: 300 });
        for await (const response of events) received.push(response.event?.version ?? 0n);
      });
      assert.equal(late.code, Code.DeadlineExceeded); // a live game's stream waits for more events
      assert.deepEqual(received, [1n]); // the deal came first
    });
  }

  test("a call that reaches nobody says where it went and what to check, not '[unknown] fetch failed'", async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port)); // a port nothing listens on now
      });
    });
    for (const baseUrl of [`http://127.0.0.1:${closed}`, `http://127.0.0.1:${server.grpcPort}`]) {
      const refused = await failure(() => new Ludotheque({ baseUrl }).listGameKinds());
      assert.equal(refused.code, Code.Unavailable, refused.message);
      assert.match(refused.message, new RegExp(`^\\[unavailable\\] Nothing answers at ${baseUrl}: `));
      assert.match(refused.message, /HTTP port \(8080 by default.*50051 is gRPC/);
    }
    // The server answering, the same calls go through (the explanation is for failures only).
    assert.ok((await new Ludotheque({ baseUrl: server.baseUrl }).listGameKinds()).length > 0);
  });
});
