// Playing online through the wrapper and the Connect protocol, against a real server:
// open seats joined by code, quick matches, leaving, starting with bots, take-overs, rematches; and
// GameSession's presence, turn clock and rematch over the WebSocket.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Code, ConnectError } from "@connectrpc/connect";

import { Ludotheque } from "../src/ludotheque.js";
import { GameStatus } from "../src/gen/ludotheque/v1/game_pb.js";
import { startServer, type Server } from "./support/server.js";
import { started, until } from "./support/sessions.js";

describe("playing online", () => {
  let server: Server;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server.stop();
  });

  test("players join by the game's code; the last one deals it", async () => {
    const lobby = new Ludotheque({ baseUrl: server.baseUrl });
    const created = await lobby.createGame("mooki", [{ name: "Cléo", age: 6 }, { open: true }], undefined, {
      clock: { turnSeconds: 60 },
    });
    assert.equal(created.game?.status, GameStatus.OPEN);
    assert.deepEqual(created.seatTokens.slice(1), [""]);
    const code = created.game?.joinCode ?? "";
    const joined = await lobby.joinGame(code.toLowerCase(), "Robin", { age: 4 });
    assert.equal(joined.seat, 1);
    const robin = lobby.withToken(joined.seatToken);
    const game = await robin.getGame(created.gameId);
    assert.equal(game.status, GameStatus.ACTIVE);
    assert.deepEqual(game.toAct, [1]); // the youngest starts
    assert.ok(game.seats[1]?.clock?.deadline, "the clock runs for the seat to act");
    assert.deepEqual(game.presence?.onlineSeats, [1]); // Robin's own call
    // A started game's code answers as an unknown one does (nothing to learn by guessing).
    await assert.rejects(lobby.joinGame(code, "Zoé"), (error: unknown) => {
      return ConnectError.from(error).code === Code.NotFound;
    });
  });

  test("two quick matches share a game; bots take the empty seat when asked", async () => {
    const lobby = new Ludotheque({ baseUrl: server.baseUrl });
    const ana = await lobby.quickMatch("picnic", "Ana", { players: 2, age: 5 });
    assert.equal(ana.created, true);
    assert.equal(ana.game?.status, GameStatus.OPEN);
    const ben = await lobby.quickMatch("picnic", "Ben", { players: 2 });
    assert.equal(ben.gameId, ana.gameId);
    assert.equal(ben.seat, 1);
    assert.equal(ben.created, false);
    assert.equal(ben.game?.status, GameStatus.ACTIVE); // the last seat taken: dealt
    const game = await lobby.withToken(ana.seatToken).getGame(ana.gameId);
    assert.equal(game.viewer?.seat, 0);
    const fay = await lobby.quickMatch("mooki", "Fay", { botsAfterSeconds: 1, bot: "random" });
    let dealt = await lobby.getGame(fay.gameId);
    for (const deadline = Date.now() + 20_000; dealt.status === GameStatus.OPEN; ) {
      assert.ok(Date.now() < deadline, "timed out waiting for the bot to take the empty seat");
      await new Promise((resolve) => setTimeout(resolve, 50));
      dealt = await lobby.getGame(fay.gameId);
    }
    assert.deepEqual(
      dealt.seats.map((seat) => seat.bot),
      ["", "random"],
    );
    await assert.rejects(lobby.quickMatch("chess", "Gus"), (error: unknown) => {
      return ConnectError.from(error).code === Code.InvalidArgument;
    });
  });

  test("a player leaves before the start; the host starts with bots", async () => {
    const lobby = new Ludotheque({ baseUrl: server.baseUrl });
    const created = await lobby.createGame("pirates", [{ name: "Ana" }, { open: true }, { open: true }]);
    const ben = await lobby.joinGame(created.gameId, "Ben");
    const left = await lobby.withToken(ben.seatToken).leaveGame(created.gameId);
    assert.equal(left?.seats[1]?.open, true);
    const started = await lobby.withToken(created.hostToken).startGame(created.gameId, "random");
    assert.deepEqual(
      started?.seats.map((seat) => seat.bot),
      ["", "random", "random"],
    );
  });

  test("a bot takes a seat over, and the game played out, a rematch for the same seats", async () => {
    const lobby = new Ludotheque({ baseUrl: server.baseUrl });
    const created = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Bot", bot: "random" }]);
    const cleo = lobby.withToken(created.seatTokens[0]);
    const over = await cleo.takeOverSeat(created.gameId, { bot: "random" });
    assert.equal(over?.status, GameStatus.FINISHED);
    assert.equal(over?.seats[0]?.takenOverBy, "random");
    const rematch = await cleo.playAgain(created.gameId);
    assert.equal(rematch.seat, 0);
    assert.equal((await cleo.playAgain(created.gameId)).gameId, rematch.gameId);
    const again = await lobby.withToken(rematch.seatToken).getGame(rematch.gameId);
    assert.deepEqual(
      again.seats.map((seat) => seat.name),
      ["Cléo", "Bot"],
    );
    assert.equal((await lobby.getGame(created.gameId)).rematchGameId, rematch.gameId);
  });

  test("GameSession: who is connected, live; the seat's clock; the rematch", async () => {
    const lobby = new Ludotheque({ baseUrl: server.baseUrl });
    const created = await lobby.createGame("mooki", [{ name: "Cléo", age: 6 }, { name: "Robin", age: 4 }], undefined, {
      clock: { turnSeconds: 600 },
    });
    const [cleoToken, robinToken] = created.seatTokens;
    const cleo = started({ baseUrl: server.baseUrl, gameId: created.gameId, token: cleoToken, presence: true });
    try {
      await until(cleo, (s) => s.onlineSeats.includes(0), "Cléo online");
      const robin = started({ baseUrl: server.baseUrl, gameId: created.gameId, token: robinToken, presence: true });
      const seen = await until(cleo, (s) => s.onlineSeats.length === 2, "both online");
      assert.deepEqual(seen.onlineSeats, [0, 1]);
      const turn = await until(robin, (s) => s.legalCommands.length > 0, "Robin's turn (the youngest starts)");
      assert.ok(turn.clock?.remaining, "the clock of the seat to act");
      assert.ok(Number(turn.clock.remaining.seconds) <= 600 && turn.clockReceivedAt > 0);
      robin.close();
      await until(cleo, (s) => !s.onlineSeats.includes(1), "Robin gone");
      const cleoClient = lobby.withToken(cleoToken ?? "");
      await cleoClient.takeOverSeat(created.gameId, { bot: "random" }); // the bots play it out
      await lobby.withToken(robinToken ?? "").takeOverSeat(created.gameId, { bot: "random" });
      await until(cleo, (s) => s.gameOver, "the game's end");
      const rematch = await cleoClient.playAgain(created.gameId);
      const told = await until(cleo, (s) => s.rematch !== undefined, "the rematch");
      assert.equal(told.rematch?.gameId, rematch.gameId);
      assert.equal(told.rematch?.seatToken, rematch.seatToken);
    } finally {
      cleo.close();
    }
  });
});
