import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { GameService } from "@ludotheque/client";

const client = createClient(GameService, createConnectTransport({ baseUrl: "http://localhost:8080" }));
const seats = [{ name: "Cléo" }, { name: "Robin", bot: "greedy" }];
const { gameId, seatTokens } = await client.createGame({ kind: "mooki", seats });
const game = await client.getGame({ gameId }, { headers: { authorization: `Bearer ${seatTokens[0]}` } });
console.log(`${game.legalCommands.length} moves for Cléo`);
for await (const { event } of client.streamEvents({ gameId, fromVersion: 1n })) {
  console.log(`event ${event?.version}: ${event?.description?.text}`);
  if (event?.version === game.version) break; // the stream goes on live: stop at the present
}
