// `@ludotheque/client/react`: a GameSession in a React component. React is an optional
// peer dependency of the package: only this module imports it.

import { useMemo, useSyncExternalStore } from "react";

import { GameSession, type GameSessionOptions, type GameSnapshot } from "./session.js";

/**
 * The live game `options` name, for this component: its snapshot (a render after every
 * change) and its session (`session.play(command)`). The session connects while a
 * component shows it and lets go when none does, so StrictMode's second mount opens no
 * second socket. A new session starts when the game, token, server, language, format
 * or presence change; the other options are read when it starts. On a server render
 * it is the idle snapshot: nothing connects.
 */
export function useGameSession(options: GameSessionOptions): readonly [GameSnapshot, GameSession] {
  const { baseUrl, gameId, token, locale, format, presence } = options;
  // A session does nothing until subscribed: one that React makes twice, or throws away
  // from its cache, costs nothing.
  const session = useMemo(() => new GameSession(options), [baseUrl, gameId, token, locale, format, presence]);
  const snapshot = useSyncExternalStore(session.subscribe, session.getSnapshot, session.getSnapshot);
  return [snapshot, session] as const;
}
