// Why a call reached nobody, said as clearly as GameSession says it. fetch hides the
// reason: a browser reports a page whose origin the server does not list and a server
// that is not there (a wrong address or port) alike, "Failed to fetch" ("[unknown]" once
// Connect has it). A request a page may make to any origin without CORS (an opaque
// `no-cors` GET of /healthz) tells the two apart: if the server answers it, it is there
// and refused this page's origin.

import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";

/** The server setting a page's origin must be listed in (docs/API.md). */
export const CORS_SETTING = "--cors-origins (LUDOTHEQUE_CORS_ORIGINS)";

// What fetch says, by runtime, when it got no response at all: Chromium, Firefox, Safari, Node.
const NO_RESPONSE = /failed to fetch|networkerror|load failed|fetch failed/i;

/** An interceptor that turns a call that got no response into a ConnectError saying
 * why: `PermissionDenied` naming the page's origin and the setting to change when the
 * server is there but does not list that origin, else `Unavailable` naming the address
 * tried and what it should be (the HTTP port). Other errors pass as they are. */
export function explainUnreachable(baseUrl: string, fetchImpl?: typeof globalThis.fetch): Interceptor {
  return (next) => async (request) => {
    try {
      return await next(request);
    } catch (reason) {
      if (!gotNoResponse(reason)) throw reason;
      throw await explained(reason, baseUrl, fetchImpl ?? globalThis.fetch);
    }
  };
}

function gotNoResponse(reason: unknown): boolean {
  const cause = reason instanceof ConnectError ? (reason.cause ?? reason) : reason;
  if (reason instanceof ConnectError && reason.code !== Code.Unknown) return false;
  return cause instanceof TypeError && NO_RESPONSE.test(cause.message);
}

/** The page's origin, in a browser whose page is not on the server's own origin. */
function crossOrigin(baseUrl: string): string | undefined {
  const page = (globalThis as { location?: { origin?: string } }).location?.origin;
  if (page === undefined || page === "null") return undefined;
  return new URL(baseUrl, page).origin === page ? undefined : page;
}

async function answers(baseUrl: string, fetchImpl: typeof globalThis.fetch): Promise<boolean> {
  try {
    await fetchImpl(new URL("/healthz", baseUrl).href, { mode: "no-cors", cache: "no-store" });
    return true;
  } catch {
    return false;
  }
}

async function explained(reason: unknown, baseUrl: string, fetchImpl: typeof globalThis.fetch): Promise<ConnectError> {
  const cause = reason instanceof ConnectError ? (reason.cause ?? reason) : reason;
  const said = cause instanceof Error ? cause.message : String(cause);
  const page = crossOrigin(baseUrl);
  if (page !== undefined && (await answers(baseUrl, fetchImpl))) {
    return new ConnectError(
      `Origin not in ${CORS_SETTING}: ${page}. The server at ${baseUrl} answers, but not to calls from ` +
        `this page: add its origin to the server's list, or serve the page from the server's own origin ` +
        `(or through a proxy, as a dev server's) (${said}).`,
      Code.PermissionDenied,
      undefined,
      undefined,
      cause,
    );
  }
  return new ConnectError(
    `Nothing answers at ${baseUrl}: is the server up, and is that its HTTP port (8080 by default: REST, ` +
      `Connect and the WebSocket; 50051 is gRPC, which a browser cannot call)? (${said})`,
    Code.Unavailable,
    undefined,
    undefined,
    cause,
  );
}
