// W3C trace context (https://www.w3.org/TR/trace-context/) for the calls a browser makes:
// a `traceparent` header names the trace a call belongs to and the caller's span, so the
// server's logs and traces of a game played in a browser can be found by its trace id.

import { randomHex } from "./ids.js";

/** Where a call's `traceparent` comes from: a function giving the header (your own
 * OpenTelemetry context, say), or `false` for none. */
export type TraceparentSource = false | (() => string | undefined);

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const ZEROS = /^0+$/;

/** A new `traceparent`: version 00, `traceId` (new unless given: 32 hex digits), a new
 * span id for the caller, and the sampled flag (the server records the trace when it
 * traces at all; pass `false` to leave the choice to its sampler's parent rules). */
export function newTraceparent(traceId: string = randomHex(16), sampled = true): string {
  return `00-${traceId}-${randomHex(8)}-${sampled ? "01" : "00"}`;
}

/** The trace id a `traceparent` names, or undefined when it is not a valid one. */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  const match = TRACEPARENT.exec(traceparent ?? "");
  if (match === null || ZEROS.test(match[1]!) || ZEROS.test(match[2]!)) return undefined;
  return match[1];
}
