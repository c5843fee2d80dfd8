// Idle seats on boardgame.io's server, for its memory per connection
// (service/bench/connection_floor.py): N matches of two seats made (Lobby API: create,
// then a join per seat), then on a line from stdin every seat connects its own client
// (`boardgame.io/client` with the `SocketIO` transport, as a browser would) and waits
// for its first state; then nothing moves until the next line, and the process ends.
//
//   node idle.js --server http://127.0.0.1:PORT --matches N
//
// Prints {"made": N} once the matches are made, {"joined": 2N} once every seat has
// its state.

const readline = require('readline');
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Mooki } = require('./mooki');
const { parseArgs, createGame } = require('./lobby');

// The first state a seat's client receives from the server.
function joined(client) {
  return new Promise((resolve) => {
    const stop = client.subscribe((state) => {
      if (state) {
        stop();
        resolve();
      }
    });
  });
}

async function main() {
  const options = parseArgs(process.argv.slice(2), { matches: 1 });
  const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const seats = [];
  for (let i = 0; i < options.matches; i += 1) {
    const { matchID, credentials } = await createGame(options.server);
    seats.push(...credentials.map((credential, playerID) => ({ matchID, playerID: String(playerID), credentials: credential })));
  }
  process.stdout.write(JSON.stringify({ made: options.matches }) + '\n');
  await lines.next();
  const clients = [];
  for (const seat of seats) {
    const client = Client({ game: Mooki, multiplayer: SocketIO({ server: options.server }), debug: false, ...seat });
    client.start();
    clients.push(client);
    await joined(client);
  }
  process.stdout.write(JSON.stringify({ joined: clients.length }) + '\n');
  await lines.next();
  for (const client of clients) client.stop();
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
