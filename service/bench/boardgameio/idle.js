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

function parseArgs(argv) {
  const options = { server: '', matches: 1 };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i].replace(/^--/, '');
    if (!(name in options)) throw new Error(`unknown option ${argv[i]}`);
    options[name] = name === 'server' ? argv[i + 1] : Number(argv[i + 1]);
  }
  if (!options.server) throw new Error('--server is required');
  return options;
}

async function post(url, body) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

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
  const options = parseArgs(process.argv.slice(2));
  const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const seats = [];
  for (let i = 0; i < options.matches; i += 1) {
    const { matchID } = await post(`${options.server}/games/mooki/create`, { numPlayers: 2 });
    for (const playerID of ['0', '1']) {
      const body = { playerID, playerName: `Seat ${playerID}` };
      const { playerCredentials } = await post(`${options.server}/games/mooki/${matchID}/join`, body);
      seats.push({ matchID, playerID, credentials: playerCredentials });
    }
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
