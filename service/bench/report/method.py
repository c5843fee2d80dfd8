"""How the benchmark measures: the method section's text, a template document.py fills in
with a run's settings."""

from __future__ import annotations

METHOD = """\
- **The server** is the real one (`ludotheque serve`, started by the benchmark on free ports),
  with the memory store, then with a Redis of the benchmark's own (`deploy/redis.conf`: the
  append-only file with `appendfsync always`, as deployed). Log level `warning`.
- **The load** runs in {processes} separate processes (`multiprocessing`, spawned once), each
  an asyncio loop of `grpc.aio` calls through the generated stubs (aiohttp for REST), so the
  load's CPU is not counted as the server's. Both share the machine's cores with the server:
  on a 2-core machine the load takes a good part of them, so throughput is a floor.
- **A move** is one command of one seat. Every seat is a human driven with its own token, as
  two frontends would be; commands are random legal ones. Over unary gRPC and REST, a move is
  one `SubmitCommand`; the seat's next legal commands come from its response when the same
  seat acts again, and from one `GetGame` of the other seat when the turn passes (a Mooki turn
  is draw then place, so that is one `GetGame` every two moves: the "RPCs each" column counts
  them, and their CPU is in the move's). Over `Play`, each seat has one session; a `turn`
  carries its legal commands, the command goes up the stream, its `result` ends the move.
  The rows marked **1 seat vs a bot** play games of one human seat against the server's
  `random` bot instead: the bot's replies are decided inside the human's call (their CPU is
  in the human's move, but they are not counted as moves), so a unary move is one RPC and
  a `Play` game has one session. Both ways are reported, and the targets are judged on both.
- **Play over WebSocket** drives the same sessions over `GET /v1/play` (aiohttp's client,
  binary protobuf frames, one WebSocket per seat, the token in the join). Its baseline is
  a **WebSocket echo**: 16 bytes sent and received back on `GET /v1/diagnostics/echo`, as
  many connections at once as games, measured right after the gRPC echo.
- **Concurrency**: {games} {kind} games at once (echo: {games} concurrent callers).
  Games come from a pool made beforehand (the memory measure below), so `CreateGame` stays out
  of the window unless the pool runs dry (then counted in "games created in window").
- **Window**: {warmup:g} s of load first, then {duration:g} s measured. Only moves that complete
  inside the window count; latency is the client's, from sending the command to its answer
  (`Play`: to its `result`).
- **Server CPU** is utime + stime of the server processes (every thread) from `/proc/<pid>/stat`,
  read at the window's start and end, divided by the moves (calls) in it. The **echo** baseline
  is a unary `DiagnosticsService/Echo` of 16 bytes, on the same server behind the same
  interceptor, measured just before the moves with the same concurrency.
- **Memory per game**: the server's RSS (`/proc/<pid>/status`) before and after creating
  {memory_games} games (freshly dealt, live, cached), divided by their number. With the memory
  store the events live in the server too; with Redis the server holds only its cache of live
  states, and Redis's own `used_memory` per game is given beside it.
- **Errors** (a failed call) would be counted in their column; none are expected.
- **StreamEvents**: {stream_games} games played over unary gRPC while {subscribers} spectators
  follow each one with `StreamEvents`; fan-out latency is the time from an event's
  `recorded_at` (stamped in milliseconds when the move was decided, before it was stored) to
  its arrival at a subscriber, so it includes the store's append; events a subscriber
  receives as history (recorded before it subscribed) count as delivered, without a delay.
- **Scale**: the same unary load (two-seat games) against `serve --workers 1` and then
  `--workers 2` on one Redis, over 8 connections per load process for both (`SO_REUSEPORT`
  spreads connections, not calls, between workers).
- **Engines** (in the benchmark's own process, CPU time, no server): full games per
  second (setup, `legal_commands`, `decide`, `evolve`), the moves chosen at random among the
  legal ones but for Pirates & Compagnie, whose games its greedy bot plays: uniformly random
  Pirates players rarely empty a hand, so their games run to thousands of moves (about 250
  with the greedy bot for two players) and games per second would not compare across kinds;
  and replay: events rebuilt per second from their stored bytes as `ReplayGame` reads
  them (`snapshots.payloads`: the events' bytes joined and parsed at once as an
  `EventRun`; then the engine's `evolve_all`) beside the protobuf parse of the same
  bytes alone, each event's `Event` on its own.
- **The store alone** (Redis store runs only): the appends of recorded games made again on
  each store in the benchmark's process, no server; its section below says how."""
