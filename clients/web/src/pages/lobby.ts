// The lobby: start a game from what GetGameKind says of each kind (its name and
// summary, how many seats, its bots, its options with their defaults, and the
// rulebooks' presets as one-click ways to play), "play with anyone" (a seat in a game
// waiting for a player, pages/lobby/quick-match.ts), and the games being played and
// finished on this server, each to play (with this browser's seats), to watch as a
// spectator, or (for a grown-up past the gate, pages/gate.ts) to open in the debug panel;
// at the bottom, the way to the grown-ups' pages, out of the main menu.
//
// This module is the page: the new-game form and "play with anyone" below it
// (pages/lobby/new-game.ts, pages/lobby/quick-match.ts) once the kinds came, and the
// lists of games (pages/lobby/game-lists.ts).

import { errorText } from "../api";
import { fill, h } from "../dom";
import { t } from "../i18n";
import { gameKinds } from "../kinds";
import { paths } from "../router";
import { showGames } from "./lobby/game-lists";
import { newGameForm } from "./lobby/new-game";
import { quickMatchPanel } from "./lobby/quick-match";

export function lobbyPage(main: HTMLElement): () => void {
  const abort = new AbortController();
  const title = h("h1", { attrs: { tabindex: -1 } }, t("lobby.title"));
  const formBox = h("div", { class: "new-game-box" }, h("p", { class: "muted" }, t("lobby.loadingKinds")));
  const quickBox = h("div", { class: "quick-match-box" });
  const lists = h("div", { class: "game-lists" });
  const grownUps = h("p", { class: "grown-ups muted" }, h("a", { attrs: { href: paths.debug() } }, t("lobby.grownUps")));
  fill(main, h("div", { class: "page lobby" }, title, h("p", { class: "lead" }, t("lobby.lead")), formBox, quickBox, lists, grownUps));
  gameKinds().then(
    (kinds) => {
      if (abort.signal.aborted) return;
      fill(quickBox, quickMatchPanel(kinds));
      fill(formBox, newGameForm(kinds));
    },
    (reason: unknown) => {
      if (!abort.signal.aborted) fill(formBox, h("p", { class: "error", attrs: { role: "alert" } }, errorText(reason)));
    },
  );
  void showGames(lists, abort.signal);
  return () => abort.abort();
}
