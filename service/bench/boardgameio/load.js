// The benchmark's load against boardgame.io's server: N games of two seats played at
// once, each seat its own boardgame.io client (`boardgame.io/client` with the
// `SocketIO` multiplayer transport, its own socket.io connection over WebSocket), as
// two browsers would. A seat moves when it is its turn, a random legal move, after a
// think time (0: flat out), each drawn from ±50% of --think so that the games do not
// move in step. A finished game is replaced by the next one.
//
// A move's latency: from the client's move call (makeMove) to the client seeing the
// state that move produced (the server's update reaching it: the moves run on the
// server only, see mooki.js). A move counts if it ends inside the window.
//
//   node load.js --server http://127.0.0.1:PORT --games 64 [--pool 200] [--think 0]
//                [--seed 1] [--warmup 2 --duration 10]
//
// The games of the pool are made (Lobby API: create, then a join per seat) before
// the window; more are made inside it if the pool runs dry (counted: games_created).
// With --duration it plays `warmup` seconds, then the window. Without it, it prints
// {"ready": true} once the pool is made and reads the window from stdin, one JSON
// line [start, end] in Unix seconds (the benchmark's parent sets every load's window).
// At the end it prints one JSON line: {"moves", "latencies" (seconds), "errors",
// "games_created", "games_finished"}.

const readline = require('readline');
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Mooki, legalMoves } = require('./mooki');
const { parseArgs, createGame } = require('./lobby');

const CREATE_CONCURRENCY = 16;
const STUCK_SECONDS = 10; // a move with no answer by then: an error, the game abandoned

// mulberry32: a small seeded generator, so a run's choices can be replayed.
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function createPool(server, count) {
  const pool = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      pool.push(await createGame(server));
    }
  };
  await Promise.all(Array.from({ length: Math.min(CREATE_CONCURRENCY, count) }, worker));
  return pool;
}

class Run {
  constructor(options, pool) {
    this.options = options;
    this.pool = pool;
    this.random = generator(options.seed);
    this.window = { start: Infinity, end: Infinity };
    this.outcome = { moves: 0, latencies: [], errors: 0, games_created: 0, games_finished: 0 };
    this.clients = new Set();
  }

  open(now) {
    return this.window.start <= now && now < this.window.end;
  }

  over() {
    return Date.now() / 1000 >= this.window.end;
  }

  async nextGame() {
    if (this.pool.length) return this.pool.pop();
    if (this.open(Date.now() / 1000)) this.outcome.games_created += 1;
    return createGame(this.options.server);
  }

  // Plays games one after another until the window ends.
  async slot() {
    while (!this.over()) {
      let game;
      try {
        game = await this.nextGame();
      } catch (error) {
        this.outcome.errors += 1;
        continue;
      }
      if (!(await this.play(game))) this.outcome.errors += 1;
    }
  }

  // One game, both seats; resolves true when both have seen it end (or the window
  // ended), false when a move got no answer.
  play(game) {
    return new Promise((resolve) => {
      const seats = ['0', '1'].map((playerID, index) =>
        this.seat(game, playerID, game.credentials[index], (ok) => finish(ok)),
      );
      let finished = false;
      const finish = (ok) => {
        if (finished) return;
        if (ok === true && !seats.every((seat) => seat.done)) return;
        finished = true;
        for (const seat of seats) seat.stop();
        if (ok === true) this.outcome.games_finished += 1;
        resolve(ok !== false);
      };
      for (const seat of seats) seat.start();
    });
  }

  seat(game, playerID, credentials, finish) {
    const client = Client({
      game: Mooki,
      numPlayers: 2,
      matchID: game.matchID,
      playerID,
      credentials,
      debug: false,
      multiplayer: SocketIO({
        server: this.options.server,
        socketOpts: { transports: ['websocket'], forceNew: true },
      }),
    });
    const seat = { done: false, pending: null, scheduled: false, timer: null };
    const think = this.options.think * 1000;
    const act = () => {
      seat.scheduled = false;
      const state = client.getState();
      if (this.over() || state === null || state.ctx.gameover !== undefined) return;
      const moves = legalMoves(state.G, playerID);
      if (state.ctx.currentPlayer !== playerID || moves.length === 0) return;
      const [name, arg] = moves[Math.floor(this.random() * moves.length)];
      seat.pending = { stateID: state._stateID, sent: performance.now() };
      client.moves[name](arg); // makeMove: to the server (the move runs there only)
    };
    const onState = (state) => {
      if (state === null) return;
      if (seat.pending !== null && state._stateID > seat.pending.stateID) {
        if (this.open(Date.now() / 1000)) {
          this.outcome.moves += 1;
          this.outcome.latencies.push((performance.now() - seat.pending.sent) / 1000);
        }
        seat.pending = null;
      }
      if (this.over()) return finish(null);
      if (state.ctx.gameover !== undefined) {
        seat.done = true;
        return finish(true);
      }
      if (seat.pending === null && !seat.scheduled && state.ctx.currentPlayer === playerID) {
        seat.scheduled = true;
        seat.timer = think > 0 ? setTimeout(act, think * (0.5 + this.random())) : setImmediate(act);
      }
    };
    const watchdog = setInterval(() => {
      if (this.over()) finish(null);
      else if (seat.pending !== null && performance.now() - seat.pending.sent > STUCK_SECONDS * 1000) finish(false);
    }, 1000);
    let unsubscribe = null;
    return {
      get done() {
        return seat.done;
      },
      start: () => {
        unsubscribe = client.subscribe(onState);
        client.start();
        this.clients.add(client);
      },
      stop: () => {
        clearInterval(watchdog);
        clearTimeout(seat.timer);
        clearImmediate(seat.timer);
        if (unsubscribe) unsubscribe();
        client.stop();
        this.clients.delete(client);
      },
    };
  }
}

function readWindow() {
  return new Promise((resolve) => {
    const lines = readline.createInterface({ input: process.stdin });
    lines.once('line', (line) => {
      lines.close();
      const [start, end] = JSON.parse(line);
      resolve({ start, end });
    });
  });
}

async function main() {
  const options = parseArgs(process.argv.slice(2), { games: 1, pool: 0, think: 0, seed: 1, warmup: 0, duration: null });
  const pool = await createPool(options.server, options.pool);
  const run = new Run(options, pool);
  if (options.duration === null) {
    process.stdout.write(JSON.stringify({ ready: true }) + '\n');
    run.window = await readWindow();
  } else {
    const start = Date.now() / 1000 + options.warmup;
    run.window = { start, end: start + options.duration };
  }
  await Promise.all(Array.from({ length: options.games }, () => run.slot()));
  for (const client of run.clients) client.stop();
  process.stdout.write(JSON.stringify(run.outcome) + '\n', () => process.exit(0));
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
