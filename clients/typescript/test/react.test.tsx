// The React binding with a real React: rendered on a server (react-dom/server), a
// component using useGameSession draws the idle snapshot and opens no socket. (In a
// browser, under StrictMode, tests/tooling/test_typescript_pages.py plays whole games
// with the README's page.)

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { StrictMode } from "react";
import { renderToString } from "react-dom/server";

import { useGameSession } from "../src/react.js";

function Status({ sockets }: { sockets: string[] }) {
  class Counted extends WebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      sockets.push(String(url));
    }
  }
  const [game, session] = useGameSession({ baseUrl: "http://127.0.0.1:9", gameId: "g1", WebSocket: Counted });
  return (
    <p>
      {game.status} {game.seats.length} {typeof session.play}
    </p>
  );
}

describe("useGameSession", () => {
  test("on a server render, draws the idle snapshot and connects nothing", () => {
    const sockets: string[] = [];
    const html = renderToString(
      <StrictMode>
        <Status sockets={sockets} />
      </StrictMode>,
    );
    assert.equal(html, "<p>idle<!-- --> <!-- -->0<!-- --> <!-- -->function</p>");
    assert.deepEqual(sockets, []);
  });
});
