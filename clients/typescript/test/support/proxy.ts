// A TCP proxy in front of the server whose connections a test can cut at any moment,
// as a network that drops would: both ends see the connection die, nothing is closed
// politely.

import { connect, createServer, type Socket } from "node:net";

export interface Proxy {
  /** The proxy's URL, to use instead of the server's. */
  baseUrl: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Destroys every open connection (new ones are still accepted). */
  cut(): void;
  close(): Promise<void>;
}

export async function startProxy(target: string): Promise<Proxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let accepted = 0;
  const server = createServer((client) => {
    accepted++;
    const upstream = connect(Number(port), hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(from);
      from.pipe(to);
      from.on("error", () => to.destroy());
      from.on("close", () => {
        open.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no port");
  const cut = (): void => {
    for (const socket of open) socket.resetAndDestroy();
  };
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    get accepted() {
      return accepted;
    },
    cut,
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
