import { GameSession, Ludotheque } from "@ludotheque/client";

const baseUrl = "http://localhost:8080";
const seats = [{ name: "Cléo" }, { name: "Robin", bot: "greedy" }];
const { gameId, seatTokens } = await new Ludotheque({ baseUrl }).createGame("mooki", seats);
const session = new GameSession({ baseUrl, gameId, token: seatTokens[0] }); // the token goes in the join
session.subscribe(() => {
  const game = session.getSnapshot(); // a new object after each change: view, legalCommands, events...
  if (game.legalCommands.length > 0 && game.pending.length === 0) {
    session.play(game.legalCommands[0]!).catch(console.error); // pending until its result
  }
  if (game.status === "closed") console.log(`game over after ${game.events.length} events`);
});
