// The highest version of each game a client was given, whichever server gave it, with
// that version's receipt (the service's signature that it gave it). Sent with every
// call about the game and in a Play session's join (`knownVersion`, `knownReceipt`):
// a server whose event store lost versions the client was shown (a failover) then
// records the loss instead of giving their numbers to other moves; a version without
// its receipt counts for nothing (docs/DURABILITY.md).

/** Where a client keeps the highest version it was given of each game, with its receipt. */
export interface KnownVersions {
  /** The highest version of the game given so far (0n: none). */
  get(gameId: string): bigint;
  /** The game was at `version` (or later) when a server answered, with that version's
   * `receipt` if it gave one. */
  saw(gameId: string, version: bigint, receipt?: string): void;
  /** The receipt of the version `get` returns ("": none). A store without receipts
   * still works, but its versions then prove nothing to a server. */
  receipt?(gameId: string): string;
}

/** What a request about the game says of it: the known version and its receipt. */
export function saying(known: KnownVersions, gameId: string): { knownVersion: bigint; knownReceipt: string } {
  return { knownVersion: known.get(gameId), knownReceipt: known.receipt?.(gameId) ?? "" };
}

/** Known versions kept in memory, for as long as the client lives. */
export class MemoryKnownVersions implements KnownVersions {
  private readonly versions = new Map<string, { version: bigint; receipt: string }>();

  get(gameId: string): bigint {
    return this.versions.get(gameId)?.version ?? 0n;
  }

  receipt(gameId: string): string {
    return this.versions.get(gameId)?.receipt ?? "";
  }

  saw(gameId: string, version: bigint, receipt = ""): void {
    const held = this.versions.get(gameId);
    // A receipt arriving for the version held (a Play message's, after its events) completes it.
    if (held === undefined || version > held.version || (version === held.version && receipt !== "" && held.receipt === "")) {
      this.versions.set(gameId, { version, receipt });
    }
  }
}
