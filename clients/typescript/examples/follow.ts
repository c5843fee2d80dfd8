import { Ludotheque } from "@ludotheque/client";

const lobby = new Ludotheque({ baseUrl: "http://localhost:8080" });
const { gameId, seatTokens } = await lobby.createGame("mooki", [{ name: "Cléo", age: 6 }, { name: "Robin", bot: "greedy" }]);
const cleo = lobby.withToken(seatTokens[0]);
const game = await cleo.getGame(gameId);
await cleo.act(gameId, game.legalCommands[0]!); // a command id, retried if unavailable
await cleo.takeOverSeat(gameId, { bot: "random" }); // a bot finishes Cléo's game
for await (const event of lobby.follow(gameId)) console.log(`event ${event.version}`); // live to the end
