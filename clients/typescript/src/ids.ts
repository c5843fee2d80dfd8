// Random identifiers: idempotency keys for moves (shared by the Connect wrapper and
// GameSession), and the ids of W3C trace context.

/** `bytes` random bytes in hex. (Not crypto.randomUUID: browsers offer it only to https pages.) */
export function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** 128 random bits in hex. */
export function newCommandId(): string {
  return randomHex(16);
}
