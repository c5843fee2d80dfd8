// Idempotency keys for moves, shared by the Connect wrapper and GameSession.

/** 128 random bits in hex. (Not crypto.randomUUID: browsers offer it only to https pages.) */
export function newCommandId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
