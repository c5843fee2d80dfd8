// What the harness's Node processes share: their command line, and boardgame.io's Lobby
// API (a match of two seats made and joined, as two browsers would).

// `--name value` pairs over `defaults` (each option a number, but --server); --server is required.
function parseArgs(argv, defaults) {
  const options = { server: '', ...defaults };
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

// A match of two seats, joined by both (each seat gets its credentials).
async function createGame(server) {
  const { matchID } = await post(`${server}/games/mooki/create`, { numPlayers: 2 });
  const credentials = [];
  for (const playerID of ['0', '1']) {
    const joined = await post(`${server}/games/mooki/${matchID}/join`, { playerID, playerName: `Seat ${playerID}` });
    credentials.push(joined.playerCredentials);
  }
  return { matchID, credentials };
}

module.exports = { parseArgs, post, createGame };
