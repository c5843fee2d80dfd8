// The app's pages and their addresses. The server answers the page at each of these
// paths (service/api/web.py PAGE_ROUTES); a new route goes in both places.

export type Route =
  | { page: "lobby" }
  | { page: "play"; gameId: string }
  | { page: "join"; code: string }
  | { page: "debug"; gameId?: string };

const GAME_ID = "([A-Za-z0-9_-]{1,64})";

export function parseRoute(pathname: string): Route | undefined {
  if (pathname === "/") return { page: "lobby" };
  const play = new RegExp(`^/play/${GAME_ID}$`).exec(pathname);
  if (play) return { page: "play", gameId: play[1] };
  const join = /^\/join\/([A-Za-z0-9-]{1,32})$/.exec(pathname);
  if (join) return { page: "join", code: join[1] };
  if (pathname === "/debug") return { page: "debug" };
  const debug = new RegExp(`^/debug/${GAME_ID}$`).exec(pathname);
  if (debug) return { page: "debug", gameId: debug[1] };
  return undefined;
}

export const paths = {
  lobby: (): string => "/",
  play: (gameId: string): string => `/play/${encodeURIComponent(gameId)}`,
  /** A join link's path: the game's join code (it takes an open seat, nothing more) and
   * its id (to show the game first, and to watch it once it started), never a token. */
  join: (code: string, gameId?: string): string => `/join/${encodeURIComponent(code)}${gameId ? `?game=${encodeURIComponent(gameId)}` : ""}`,
  debug: (gameId?: string): string => (gameId ? `/debug/${encodeURIComponent(gameId)}` : "/debug"),
};

type Listener = (route: Route | undefined) => void;
let listener: Listener = () => undefined;

/** Follows links and the back button: `onRoute` is called with each new route. */
export function startRouter(onRoute: Listener): void {
  listener = onRoute;
  document.addEventListener("click", (event) => {
    const link = (event.target as Element | null)?.closest?.("a");
    if (!link || link.target || link.hasAttribute("download") || event.defaultPrevented) return;
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const url = new URL(link.href, location.href);
    if (url.origin !== location.origin || parseRoute(url.pathname) === undefined) return;
    event.preventDefault();
    navigate(url.pathname + url.search);
  });
  window.addEventListener("popstate", () => listener(parseRoute(location.pathname)));
  listener(parseRoute(location.pathname));
}

/** Shows `path`; `replace`: in place of the page shown (a page that only sends on). */
export function navigate(path: string, { replace = false } = {}): void {
  if (replace) history.replaceState(null, "", path);
  else if (path !== location.pathname + location.search) history.pushState(null, "", path);
  listener(parseRoute(location.pathname));
}
