// GameSessions in tests: one that is listened to from the start (a session connects
// when its first listener subscribes), and waiting for a snapshot that holds.

import { GameSession, type GameSessionOptions, type GameSnapshot } from "../../src/session.js";

const DEADLINE_MS = 20_000;

/** A session with a listener from the start, as a page showing it has: it connects now
 * and stays connected until it closes. */
export function started(options: GameSessionOptions): GameSession {
  const session = new GameSession(options);
  session.subscribe(() => {});
  return session;
}

/** Resolves with the first snapshot for which `holds` is true (the current one included). */
export function until(session: GameSession, holds: (snapshot: GameSnapshot) => boolean, what: string): Promise<GameSnapshot> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const snapshot = session.getSnapshot();
      if (!holds(snapshot)) return false;
      clearTimeout(timer);
      stop();
      resolve(snapshot);
      return true;
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`timed out waiting for ${what}: ${JSON.stringify(session.getSnapshot(), replacer)}`));
    }, DEADLINE_MS);
    const stop = session.subscribe(check);
    check();
  });
}

function replacer(key: string, value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  return key === "events" ? `${(value as unknown[]).length} events` : value;
}
