// Game logs from TypeScript: a golden log read from its JSON Lines and written back
// line for line, replayed by a real server (ReplayLog) as a seat saw it, and a broken
// log's first bad event named.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { LogFormatError, parseLog, toJsonLines } from "../src/logs.js";
import { Ludotheque } from "../src/ludotheque.js";
import { GameStatus } from "../src/gen/ludotheque/v1/game_pb.js";
import { ADMIN_TOKEN, repositoryRoot, startServer, type Server } from "./support/server.js";

const golden = (kind: string): string =>
  readFileSync(join(repositoryRoot(), "seeds", "replays", kind, "game-1.jsonl"), "utf8");

describe("game logs", () => {
  let server: Server;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server.stop();
  });

  test("a log reads from JSON Lines and writes back to the same lines", () => {
    const text = golden("mooki");
    const log = parseLog(text);
    assert.equal(log.header?.kind, "mooki");
    const written = toJsonLines(log).split("\n");
    const read = text.split("\n");
    assert.equal(written.length, read.length);
    for (const [index, line] of read.entries()) {
      if (line) assert.deepEqual(JSON.parse(written[index]), JSON.parse(line), `line ${index + 1}`);
    }
    assert.throws(() => parseLog(text.replace(/\n/, "\nnot json\n")), (e: unknown) => {
      return e instanceof LogFormatError && e.line === 2;
    });
  });

  test("the server replays a log file storing nothing, or names its first bad event", async () => {
    const lobby = new Ludotheque({ baseUrl: server.baseUrl });
    const log = parseLog(golden("pirates"));
    const last = BigInt(log.events.length);
    const end = await lobby.replayLog(log, { fromVersion: last, asSeat: 1 });
    assert.ok(end.valid);
    assert.equal(end.replayed, last);
    assert.equal(end.steps[0].status, GameStatus.FINISHED);
    assert.equal(end.steps[0].view?.game.case, "pirates");
    const broken = parseLog(golden("pirates"));
    broken.events[3].version = 99n;
    const refused = await lobby.replayLog(broken);
    assert.equal(refused.valid, false);
    assert.equal(refused.problem?.event, 4);
    assert.match(refused.problem?.reason ?? "", /version 99/);
    const admin = lobby.withToken(ADMIN_TOKEN);
    const games = await admin.client.listGames({});
    assert.equal(games.games.length, 0);
  });
});
