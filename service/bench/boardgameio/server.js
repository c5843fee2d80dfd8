// boardgame.io's own server for the benchmark: `Server({ games: [Mooki] })` with its
// default in-memory store and socket.io transport, the Lobby API on the same port.
//
//   node server.js [port]     (port 0 or none: a free one)
//
// Prints one JSON line when it listens, {"port": N, "pid": P}, then serves until
// SIGTERM or SIGINT.

const { Server } = require('boardgame.io/server');
const { Mooki } = require('./mooki');

// The benchmark's clients are Node (no Origin header); a browser page on localhost may connect too.
const server = Server({ games: [Mooki], origins: [/localhost:\d+/, /127\.0\.0\.1:\d+/] });
const port = Number(process.argv[2] || 0);

server.run({ port }).then(({ appServer }) => {
  process.stdout.write(JSON.stringify({ port: appServer.address().port, pid: process.pid }) + '\n');
  const stop = () => {
    appServer.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
});
