// Starts the real service (`python -m service serve`) on free ports for a test file.
// The server prints one JSON line on stdout once it listens: reading it is how a
// test waits for the server, without sleeping.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const ADMIN_TOKEN = "node-admin-token-0123456789abcdef-0123456789";
const SECRET = "node-tests-secret-0123456789-0123456789abcdef";

export interface Server {
  /** The HTTP port's URL, the Connect transport's baseUrl. */
  baseUrl: string;
  grpcPort: number;
  /** What the server logged so far (stderr). */
  log(): string;
  /** Resolves once what the server logged makes `holds` true (checked as each line comes). */
  logged(holds: (log: string) => boolean, what: string): Promise<void>;
  stop(): Promise<void>;
}

/** The repository's root: the nearest directory above this file holding proto/. */
export function repositoryRoot(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(directory, "proto")) || !existsSync(join(directory, "pyproject.toml"))) {
    const parent = dirname(directory);
    if (parent === directory) throw new Error("no repository root (with proto/) above the tests");
    directory = parent;
  }
  return directory;
}

export async function startServer(env: Record<string, string> = {}): Promise<Server> {
  const root = repositoryRoot();
  const configured = process.env["LUDOTHEQUE_PYTHON"];
  const python = configured ? resolve(configured) : join(root, ".venv", "bin", "python");
  const child = spawn(python, ["-m", "service", "serve"], {
    cwd: root,
    env: {
      ...process.env,
      LUDOTHEQUE_HOST: "127.0.0.1",
      LUDOTHEQUE_GRPC_PORT: "0",
      LUDOTHEQUE_HTTP_PORT: "0",
      LUDOTHEQUE_SECRET: SECRET,
      LUDOTHEQUE_ADMIN_TOKEN: ADMIN_TOKEN,
      LUDOTHEQUE_SHUTDOWN_GRACE: "1",
      // Many games, bots-only ones too, from one address: no creation limits here.
      LUDOTHEQUE_CREATE_RATE: "0",
      LUDOTHEQUE_LIVE_GAMES: "0",
      LUDOTHEQUE_BOT_GAME_RATE: "1000000",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const watchers = new Set<() => void>();
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    log += chunk;
    for (const watcher of [...watchers]) watcher();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", (line) => {
      lines.close();
      resolve(line);
    });
    child.once("error", reject);
    void exited.then(() => reject(new Error(`the server did not start:\n${log}`)));
  });
  const ports = JSON.parse(firstLine) as { grpc_port: number; http_port: number };
  return {
    baseUrl: `http://127.0.0.1:${ports.http_port}`,
    grpcPort: ports.grpc_port,
    log: () => log,
    logged(holds, what) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (!holds(log)) return;
          watchers.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`the server never logged ${what}`));
        }, 20_000);
        watchers.add(check);
        check();
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
