// The client says the highest version of each game it was given (`knownVersion`) with
// its receipt (`knownReceipt`: a version without it counts for nothing), on every call
// about the game and in a Play session's join, whichever call or server gave it: a
// server whose store lost versions the client was shown then records the loss instead
// of giving their numbers to other moves (docs/DURABILITY.md).

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { fromBinary, fromJsonString, type DescMessage } from "@bufbuild/protobuf";

import { MemoryKnownVersions } from "../src/known.js";
import { Ludotheque } from "../src/ludotheque.js";
import { GameSession, type WebSocketClass } from "../src/session.js";
import {
  GetGameRequestSchema,
  ListEventsRequestSchema,
  PlayRequestSchema,
  SubmitCommandRequestSchema,
} from "../src/gen/ludotheque/v1/game_service_pb.js";
import { startServer, type Server } from "./support/server.js";

const SCHEMAS: Record<string, DescMessage> = {
  GetGame: GetGameRequestSchema,
  SubmitCommand: SubmitCommandRequestSchema,
  ListEvents: ListEventsRequestSchema,
};

/** A fetch that notes the `knownVersion` and `knownReceipt` of each GetGame, SubmitCommand and ListEvents it sends. */
function notingFetch(): { fetch: typeof globalThis.fetch; said: Array<[string, bigint, string]> } {
  const said: Array<[string, bigint, string]> = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    const method = String(input).split("/").at(-1) ?? "";
    const schema = SCHEMAS[method];
    const body = init?.body;
    const text = body instanceof Uint8Array ? new TextDecoder().decode(body) : body;
    if (schema !== undefined && typeof text === "string") {
      const request = fromJsonString(schema, text) as unknown as { knownVersion: bigint; knownReceipt: string };
      said.push([method, request.knownVersion, request.knownReceipt]);
    }
    return globalThis.fetch(input, init);
  };
  return { fetch, said };
}

describe("known versions", () => {
  let server: Server;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server.stop();
  });

  test("every call about a game says the highest version given of it, shared by the same caller's clients", async () => {
    const { fetch, said } = notingFetch();
    const lobby = new Ludotheque({ baseUrl: server.baseUrl, fetch });
    const created = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin" }]);
    const gameId = created.gameId;
    assert.equal(lobby.known.get(gameId), created.game!.version);
    assert.ok(created.game!.receipt !== "" && lobby.known.receipt?.(gameId) === created.game!.receipt);
    const seat = created.game!.toAct[0]!;
    const player = lobby.withToken(created.seatTokens[seat]);
    assert.equal(player.known, lobby.known); // one caller, one memory
    const game = await player.getGame(gameId);
    const played = await player.act(gameId, game.legalCommands[0]!);
    assert.ok(played.version > game.version && lobby.known.get(gameId) === played.version);
    assert.ok(played.receipt !== "" && lobby.known.receipt?.(gameId) === played.receipt);
    await lobby.getGame(gameId);
    await lobby.history(gameId);
    assert.deepEqual(said, [
      ["GetGame", created.game!.version, created.game!.receipt],
      ["SubmitCommand", created.game!.version, created.game!.receipt],
      ["GetGame", played.version, played.receipt],
      ["ListEvents", played.version, played.receipt],
    ]);
  });

  test("a Play session's join says the version its known versions hold, and notes what it is given", async () => {
    const lobby = new Ludotheque({ baseUrl: server.baseUrl });
    const { gameId, seatTokens, game } = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin", bot: "greedy" }]);
    const joins: Array<[bigint, string]> = [];
    class Noting extends WebSocket {
      override send(data: string | ArrayBufferLike | Blob | ArrayBufferView): void {
        const request = fromBinary(PlayRequestSchema, new Uint8Array(data as ArrayBuffer));
        if (request.message.case === "join") joins.push([request.message.value.knownVersion, request.message.value.knownReceipt]);
        super.send(data);
      }
    }
    const known = new MemoryKnownVersions();
    known.saw(gameId, game!.version, game!.receipt); // as another call gave it
    const session = new GameSession({ baseUrl: server.baseUrl, gameId, token: seatTokens[0], known, WebSocket: Noting as WebSocketClass });
    try {
      const deadline = Date.now() + 20_000;
      while (session.getSnapshot().legalCommands.length === 0 && !session.getSnapshot().gameOver) {
        assert.ok(Date.now() < deadline, "no turn came");
        await new Promise((resolve) => session.subscribe(() => resolve(undefined)));
      }
      const result = await session.play(session.getSnapshot().legalCommands[0]!);
      assert.deepEqual(joins, [[game!.version, game!.receipt]]);
      assert.ok(known.get(gameId) >= result.version && result.version > game!.version);
      assert.ok(known.receipt(gameId) !== "" && known.receipt(gameId) !== game!.receipt); // the session's, kept
    } finally {
      session.close();
    }
  });
});
