// The highest version of each game a client was given, whichever server gave it. Sent
// with every call about the game and in a Play session's join (`knownVersion`): a
// server whose event store lost versions the client was shown (a failover) then
// records the loss instead of giving their numbers to other moves (docs/DURABILITY.md).

/** Where a client keeps the highest version it was given of each game. */
export interface KnownVersions {
  /** The highest version of the game given so far (0n: none). */
  get(gameId: string): bigint;
  /** The game was at `version` (or later) when a server answered. */
  saw(gameId: string, version: bigint): void;
}

/** Known versions kept in memory, for as long as the client lives. */
export class MemoryKnownVersions implements KnownVersions {
  private readonly versions = new Map<string, bigint>();

  get(gameId: string): bigint {
    return this.versions.get(gameId) ?? 0n;
  }

  saw(gameId: string, version: bigint): void {
    if (version > this.get(gameId)) this.versions.set(gameId, version);
  }
}
