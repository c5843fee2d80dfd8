// The README's examples are files of examples/, word for word (so tsc checks them), and
// those that run in Node run against a real server (the pages run in a browser:
// tests/tooling/test_typescript_pages.py); so does the WebSocket example of the
// repository's docs/API.md.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { GameStatus } from "../src/gen/ludotheque/v1/game_pb.js";
import { Ludotheque } from "../src/ludotheque.js";
import { startServer, type Server } from "./support/server.js";

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const EXAMPLE = "http://localhost:8080";

/** Runs a compiled example against `baseUrl` instead of the README's address (from
 * beside the compiled examples, so that it imports the package by its own name); its
 * output. */
async function runExample(name: string, baseUrl: string): Promise<string> {
  const compiled = readFileSync(join(PACKAGE, "dist", "examples", `${name}.js`), "utf8");
  assert.ok(compiled.includes(EXAMPLE));
  const script = join(PACKAGE, "dist", "examples", `${name}-against-test-server.js`);
  writeFileSync(script, compiled.replace(EXAMPLE, baseUrl));
  try {
    const run = promisify(execFile)(process.execPath, ["--experimental-websocket", script], { timeout: 60_000 });
    return (await run).stdout;
  } finally {
    rmSync(script, { force: true });
  }
}

describe("the README", () => {
  let server: Server;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server.stop();
  });

  test("shows examples/ word for word: every ts and tsx block of the README and of docs/CLIENTS.md", () => {
    const examples = new Map(
      readdirSync(join(PACKAGE, "examples")).map((name) => [readFileSync(join(PACKAGE, "examples", name), "utf8"), name]),
    );
    const shown = new Set<string>();
    for (const document of [join(PACKAGE, "README.md"), join(PACKAGE, "..", "..", "docs", "CLIENTS.md")]) {
      for (const [, code] of readFileSync(document, "utf8").matchAll(/```tsx?\n([\s\S]*?)```\n/g)) {
        const name = examples.get(code!);
        assert.ok(name !== undefined, `${document}: a block that is no file of examples/:\n${code}`);
        shown.add(name);
      }
    }
    assert.deepEqual([...shown].sort(), [...examples.values()].sort(), "every example is shown");
  });

  test("examples/session.ts plays a whole game over a WebSocket", async () => {
    assert.match(await runExample("session", server.baseUrl), /^game over after \d+ events$/m);
  });

  test("examples/connect.ts calls the generated service with Connect's own client", async () => {
    const stdout = await runExample("connect", server.baseUrl);
    assert.match(stdout, /^\d+ moves for Cléo$/m);
    assert.match(stdout, /^event 1: The cards are shuffled/m);
  });

  test("examples/follow.ts (docs/CLIENTS.md) follows a game to its end", async () => {
    const versions = (await runExample("follow", server.baseUrl)).trim().split("\n").map((line) => Number(line.slice(6)));
    assert.deepEqual(versions, versions.map((_, index) => index + 1));
    assert.ok(versions.length > 10);
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

  test("examples/tour.ts plays a whole game", async () => {
    const stdout = await runExample("tour", server.baseUrl);
    assert.match(stdout, /^event 1: mooki$/m);
    assert.match(stdout, /stars/);
  });
});
