import { GameStatus, Ludotheque } from "@ludotheque/client";

const lobby = new Ludotheque({ baseUrl: "http://localhost:8080" }); // no token: a spectator
const seats = [{ name: "Cléo", age: 6 }, { name: "Robin", bot: "greedy" }];
const { gameId, seatTokens } = await lobby.createGame("mooki", seats);
const cleo = lobby.withToken(seatTokens[0]); // each seat gets a secret token
const watching = (async () => {
  for await (const event of lobby.follow(gameId)) console.log(`event ${event.version}: ${event.game.case}`);
})(); // a spectator's live stream, resumed by itself if the connection drops
let game = await cleo.getGame(gameId); // Cléo's view and her legal moves
while (game.status === GameStatus.ACTIVE) {
  await cleo.act(gameId, game.legalCommands[0]); // the bot answers within the call
  game = await cleo.getGame(gameId);
}
await watching; // the stream ends with the game
console.log(game.outcome?.summary, (await lobby.replay(gameId, 2n)).view?.game.value); // time travel
