// Whole games of every kind through the generated client and the Connect protocol,
// against a real server, while a spectator follows the event stream. Every kind the API
// names: the example games too (docs/NEW_GAME.md), which the server serves when asked.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { equals } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";

import { Ludotheque } from "../src/ludotheque.js";
import { CommandSchema, GameStatus, ViewerRole, Visibility } from "../src/gen/ludotheque/v1/game_pb.js";
import { GameService } from "../src/gen/ludotheque/v1/game_service_pb.js";
import { collect, createWithBots, gameKinds, pick, seededRandom } from "./support/games.js";
import { ADMIN_TOKEN, startServer, type Server } from "./support/server.js";

const MAX_MOVES = 5000;

describe("games over Connect", () => {
  let server: Server;
  before(async () => {
    server = await startServer({ LUDOTHEQUE_EXAMPLE_GAMES: "1" });
  });
  after(async () => {
    await server.stop();
  });

  test("the API names at least the mooki kind", () => {
    assert.ok(gameKinds().includes("mooki"), gameKinds().join(", "));
  });

  for (const [index, kind] of gameKinds().entries()) {
    for (const useBinaryFormat of [false, true]) {
      const format = useBinaryFormat ? "protobuf" : "JSON";
      test(`a whole game of ${kind} in ${format}, one human and random bots, while a spectator follows`, async () => {
        const lobby = new Ludotheque({ baseUrl: server.baseUrl, useBinaryFormat });
        const created = await createWithBots(lobby, kind);
        const gameId = created.gameId;
        const human = lobby.withToken(created.seatTokens[0]);
        const spectator = new Ludotheque({ baseUrl: server.baseUrl, useBinaryFormat: !useBinaryFormat });
        const followed = collect(spectator.follow(gameId));

        const random = seededRandom(1000 + index);
        const start = await human.getGame(gameId);
        assert.equal(start.viewer?.role, ViewerRole.SEAT);
        // Each answer carries the human's next legal moves: one call a move.
        let turn = { status: start.status, version: start.version, legalCommands: start.legalCommands, toAct: start.toAct };
        for (let moves = 0; turn.status === GameStatus.ACTIVE; moves++) {
          assert.ok(moves < MAX_MOVES, `${kind}: no end after ${MAX_MOVES} moves`);
          assert.ok(turn.legalCommands.length > 0, `${kind}: the human must be to act (to act: ${turn.toAct})`);
          const played = await human.act(gameId, pick(random, turn.legalCommands), { expectedVersion: turn.version });
          assert.ok(played.version > turn.version);
          assert.ok(played.events.length > 0);
          turn = played;
        }
        const game = await human.getGame(gameId);
        assert.equal(game.version, turn.version);
        assert.equal(game.status, GameStatus.FINISHED);
        assert.ok(game.outcome !== undefined && game.outcome.summary.length > 0);

        const events = await followed; // the stream ends by itself with the game
        // Nothing missed, nothing repeated. (What the stream sent before its live tail is the
        // past as the spectator could recall it then, the game's memory rule; read again once
        // the game is over, it is all open: so the versions are compared, not the faces.)
        const history = await spectator.history(gameId);
        assert.deepEqual(
          events.map((event) => [event.version, event.game.value?.kind.case]),
          history.map((event) => [event.version, event.game.value?.kind.case]),
        );
        assert.equal(events.at(-1)?.gameOver, true);
        assert.equal(events.at(-1)?.version, game.version);
        assert.ok(events.every((event) => event.game.case === kind));

        const past = await human.replay(gameId, 1n);
        assert.equal(past.atVersion, 1n);
        assert.equal(past.version, game.version);
        assert.equal(past.status, GameStatus.ACTIVE);
        assert.equal(past.view?.game.case, kind);
      });
    }
  }

  test("createClient(GameService, createConnectTransport({ baseUrl })) works unchanged", async () => {
    const client = createClient(GameService, createConnectTransport({ baseUrl: server.baseUrl }));
    const created = await client.createGame({
      kind: "mooki",
      seats: [
        { name: "Ada", bot: "greedy" },
        { name: "Bo", bot: "random" },
      ],
      visibility: Visibility.LISTED, // games are unlisted unless asked
    });
    assert.equal(created.game?.status, GameStatus.FINISHED); // bots play at once
    const streamed = [];
    for await (const response of client.streamEvents({ gameId: created.gameId })) streamed.push(response.event);
    const listed = await client.listEvents({ gameId: created.gameId });
    assert.deepEqual(streamed, listed.events);
    const found = await client.listGames({ kind: "mooki", status: GameStatus.FINISHED });
    assert.ok(found.games.some((game) => game.gameId === created.gameId));
    const replayed = await client.replayGame({ gameId: created.gameId, atVersion: 3n });
    assert.equal(replayed.atVersion, 3n);
  });

  test("a hint is one of the seat's legal moves, with a reason in its language, and may be played as it came", async () => {
    const lobby = new Ludotheque({ baseUrl: server.baseUrl, locale: "fr" });
    const created = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin" }]);
    const cleo = lobby.withToken(created.seatTokens[0]);
    const hint = await cleo.getHint(created.gameId);
    const game = await cleo.getGame(created.gameId);
    assert.equal(hint.version, game.version);
    assert.ok(game.legalCommands.some((legal) => equals(CommandSchema, legal, hint.command!)));
    assert.match(hint.reason?.text ?? "", /^Prends /);
    const played = await cleo.act(created.gameId, hint.command!);
    assert.ok(played.version > hint.version);
    await assert.rejects(lobby.withToken(created.seatTokens[1]).getHint(created.gameId), (error: ConnectError) => {
      assert.equal(error.code, Code.FailedPrecondition); // not Robin's turn
      return true;
    });
  });

  test("a long game's past comes a page a call over Connect, and follow() goes on to its end", async () => {
    const admin = new Ludotheque({ baseUrl: server.baseUrl, token: ADMIN_TOKEN }); // bot-only games: the admin
    const bots = ["Ada", "Bo", "Cy"].map((name) => ({ name, bot: "random" }));
    const created = await admin.createGame("pirates", bots);
    const length = created.game?.version ?? 0n;
    assert.ok(length > 1000n, `a game longer than a page: ${length} events`);
    const client = createClient(GameService, createConnectTransport({ baseUrl: server.baseUrl }));
    const page = [];
    for await (const response of client.streamEvents({ gameId: created.gameId })) page.push(response.event);
    assert.equal(page.length, 1000); // a page of the past, then the call ends
    const followed = await collect(new Ludotheque({ baseUrl: server.baseUrl }).follow(created.gameId));
    assert.deepEqual(
      followed.map((event) => event.version),
      Array.from({ length: Number(length) }, (_, index) => BigInt(index + 1)),
    );
    assert.ok(followed.at(-1)?.gameOver);
  });
});
