// The lobby's lists of games on this server: waiting for players, being played, and
// finished; each to play (with this browser's seats), to join, to watch, or to debug.

import { grownUp } from "../gate";
import { GameStatus, type Game } from "@ludotheque/client";

import { api, errorText, seats as heldSeats } from "../../api";
import { fill, h } from "../../dom";
import { t } from "../../i18n";
import { botName, gameKinds, kindName } from "../../kinds";
import { paths } from "../../router";

/** Fills `box` with the three lists (ListGames, twenty each). */
export async function showGames(box: HTMLElement, signal: AbortSignal): Promise<void> {
  const waiting = h("section", { class: "panel", attrs: { "aria-labelledby": "open-title" } }, h("h2", { attrs: { id: "open-title" } }, t("lobby.open")));
  const active = h("section", { class: "panel", attrs: { "aria-labelledby": "active-title" } }, h("h2", { attrs: { id: "active-title" } }, t("lobby.active")));
  const finished = h("section", { class: "panel", attrs: { "aria-labelledby": "finished-title" } }, h("h2", { attrs: { id: "finished-title" } }, t("lobby.finished")));
  fill(box, waiting, active, finished);
  try {
    const [open, playing, over] = await Promise.all([
      api().client.listGames({ status: GameStatus.OPEN, pageSize: 20 }, { signal }),
      api().client.listGames({ status: GameStatus.ACTIVE, pageSize: 20 }, { signal }),
      api().client.listGames({ status: GameStatus.FINISHED, pageSize: 20 }, { signal }),
      gameKinds().catch(() => []), // the games' names
    ]);
    waiting.append(gameList(open.games, t("lobby.noOpen")));
    active.append(gameList(playing.games, t("lobby.noActive")));
    finished.append(gameList(over.games, t("lobby.noFinished")));
  } catch (reason) {
    if (!signal.aborted) box.append(h("p", { class: "error", attrs: { role: "alert" } }, errorText(reason)));
  }
}

function gameList(games: Game[], empty: string): HTMLElement {
  if (games.length === 0) return h("p", { class: "muted" }, empty);
  return h("ul", { class: "game-list" }, ...games.map(gameItem));
}

function gameItem(game: Game): HTMLElement {
  const held = heldSeats.held(game.gameId);
  const players = game.seats.map((seat, index) => {
    if (seat.open) return t("play.openSeat");
    const name = seat.name || t("lobby.playerName", { n: index + 1 });
    return seat.bot ? `${name} (${botName(seat.bot)})` : name;
  });
  const finished = game.status === GameStatus.FINISHED;
  const waiting = game.status === GameStatus.OPEN;
  const about = finished ? game.outcome?.description?.text || t("lobby.over") : waiting ? t("play.waitingForPlayers") : t("lobby.moves", { n: game.version });
  const open = held.length > 0 && !finished ? t("lobby.play") : t("lobby.watch");
  const label = `${kindName(game.kind)}, ${players.join(", ")}`;
  const join =
    waiting && held.length === 0 && game.joinCode
      ? h("a", { class: "button", attrs: { href: paths.join(game.joinCode, game.gameId), "aria-label": `${t("lobby.join")}: ${label}` } }, t("lobby.join"))
      : null;
  return h(
    "li",
    { class: "game-item", attrs: { "data-game": game.gameId } },
    h("div", { class: "game-title" }, h("strong", {}, kindName(game.kind)), " · ", players.join(", ")),
    h("div", { class: "game-about muted" }, about),
    h(
      "div",
      { class: "game-links" },
      join,
      h("a", { class: join ? "button secondary" : "button", attrs: { href: paths.play(game.gameId), "aria-label": `${open}: ${kindName(game.kind)}, ${players.join(", ")}` } }, open),
      grownUp() ? h("a", { class: "button secondary", attrs: { href: paths.debug(game.gameId), "aria-label": `${t("lobby.debug")}: ${kindName(game.kind)}, ${players.join(", ")}` } }, t("lobby.debug")) : null,
    ),
  );
}
