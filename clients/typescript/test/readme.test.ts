// The README's example is examples/tour.ts, word for word (so tsc checks it), and it
// plays a whole game against a real server; so does the WebSocket example of the
// repository's docs/API.md.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { GameStatus } from "../src/gen/ludotheque/v1/game_pb.js";
import { Ludotheque } from "../src/ludotheque.js";
import { startServer, type Server } from "./support/server.js";

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const EXAMPLE = "http://localhost:8080";

describe("the README", () => {
  let server: Server;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server.stop();
  });

  test("shows examples/tour.ts as it is", () => {
    const readme = readFileSync(join(PACKAGE, "README.md"), "utf8");
    const tour = readFileSync(join(PACKAGE, "examples", "tour.ts"), "utf8");
    assert.ok(readme.includes("```ts\n" + tour + "```\n"), "the README's first example must be examples/tour.ts");
  });

  test("shows examples/session.ts as it is, and it plays a whole game over a WebSocket", async () => {
    const readme = readFileSync(join(PACKAGE, "README.md"), "utf8");
    const example = readFileSync(join(PACKAGE, "examples", "session.ts"), "utf8");
    assert.ok(readme.includes("```ts\n" + example + "```\n"), "the README must show examples/session.ts");
    const compiled = readFileSync(join(PACKAGE, "dist", "examples", "session.js"), "utf8");
    assert.ok(compiled.includes(EXAMPLE));
    const script = join(PACKAGE, "dist", "examples", "session-against-test-server.js");
    writeFileSync(script, compiled.replace(EXAMPLE, server.baseUrl));
    try {
      const run = promisify(execFile)(process.execPath, ["--experimental-websocket", script], { timeout: 60_000 });
      assert.match((await run).stdout, /^game over after \d+ events$/m);
    } finally {
      rmSync(script, { force: true });
    }
  });

  test("docs/API.md's WebSocket example plays a whole game against a bot", async () => {
    const api = readFileSync(join(PACKAGE, "..", "..", "docs", "API.md"), "utf8");
    const start = api.indexOf("\n## Play over WebSocket\n");
    assert.ok(start >= 0, "docs/API.md has no section Play over WebSocket");
    const end = api.indexOf("\n## ", start + 1);
    const section = api.slice(start, end < 0 ? undefined : end);
    const block = /```js\n([\s\S]*?)```/.exec(section)?.[1];
    assert.ok(block !== undefined && block.includes("ws://localhost:8080"), "no WebSocket example in docs/API.md");
    const lobby = new Ludotheque({ baseUrl: server.baseUrl });
    const { gameId, seatTokens } = await lobby.createGame("mooki", [{ name: "Cléo" }, { name: "Robin", bot: "greedy" }]);
    const code = block.replace("ws://localhost:8080", server.baseUrl.replace("http:", "ws:")) + "\nreturn socket;";
    const socket = new Function("gameId", "seatToken", code)(gameId, seatTokens[0]) as WebSocket;
    await new Promise<void>((resolve) =>
      socket.addEventListener("message", ({ data }) => {
        const { events = [] } = JSON.parse(String(data)) as { events?: { gameOver?: boolean }[] };
        if (events.some((event) => event.gameOver)) resolve();
      }),
    );
    socket.close(1000);
    const finished = await lobby.getGame(gameId);
    assert.equal(finished.status, GameStatus.FINISHED);
  });

  test("its example plays a whole game", async () => {
    // Next to the compiled example, so that it imports the package by its own name.
    const compiled = readFileSync(join(PACKAGE, "dist", "examples", "tour.js"), "utf8");
    assert.ok(compiled.includes(EXAMPLE));
    const script = join(PACKAGE, "dist", "examples", "tour-against-test-server.js");
    writeFileSync(script, compiled.replace(EXAMPLE, server.baseUrl));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [script], { timeout: 60_000 });
      assert.match(stdout, /^event 1: mooki$/m);
      assert.match(stdout, /stars/);
    } finally {
      rmSync(script, { force: true });
    }
  });
});
