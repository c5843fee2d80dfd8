// The play page: a game as this browser's seat sees it (or as a spectator, without one),
// its board (boards/), the moves offered, what happened in words, and the outcome. It
// uses what the API offers today: GetGame for the view and legal moves, SubmitCommand
// (act) to play, StreamEvents (follow) for the events, resumed by the client after a drop.
// Phase 2 moves it onto the WebSocket GameSession (one connection: view, moves, log,
// pending move, reconnection) without changing the board boundary.

import { Code, ConnectError, GameStatus, type Command, type Event, type Game, type Ludotheque } from "@ludotheque/client";

import { errorText, seats as heldSeats, service, type HeldSeat } from "../api";
import { boardFor } from "../boards/board";
import { announce, fill, h } from "../dom";
import { t } from "../i18n";
import { kindName } from "../kinds";
import { paths } from "../router";
import { describeEvent } from "../views/message";

export function playPage(main: HTMLElement, gameId: string): () => void {
  const abort = new AbortController();
  const held = heldSeats.held(gameId);
  let seat: HeldSeat | undefined = held[0];
  let game: Game | undefined;
  let pending = false;
  let seen = 0n;

  const title = h("h1", { attrs: { tabindex: -1 } }, t("play.loading"));
  const who = h("p", { class: "lead" });
  const status = h("p", { class: "status", attrs: { role: "status", "data-status": "" } });
  const error = h("p", { class: "error", attrs: { role: "alert" } });
  const seatSwitch = h("div", { class: "seat-switch" });
  const boardBox = h("div", { class: "board-box" });
  const log = h("ol", { class: "event-log" });
  fill(
    main,
    h(
      "div",
      { class: "page play" },
      title,
      who,
      h("div", { class: "play-bar" }, status, seatSwitch),
      error,
      h(
        "div",
        { class: "play-layout" },
        h("section", { class: "board-area", attrs: { "aria-label": t("play.board") } }, boardBox),
        h(
          "section",
          { class: "panel log-panel", attrs: { "aria-labelledby": "log-title" } },
          h("h2", { attrs: { id: "log-title" } }, t("play.log")),
          // A log region: screen readers read each new event as it comes.
          h("div", { class: "log-scroll", attrs: { role: "log", "aria-labelledby": "log-title", tabindex: 0 } }, log),
        ),
      ),
      h("p", { class: "links" }, h("a", { attrs: { href: paths.debug(gameId) } }, t("play.openDebug"))),
    ),
  );

  const caller = (): Ludotheque => (seat ? service.withToken(seat.token) : service);

  // What the page shows was drawn for this (version, seat, pending): the same again is
  // not redrawn, so a button is not replaced under a player's finger or focus.
  let drawn = "";
  function render(): void {
    if (!game) return;
    const key = `${game.version}:${seat?.seat ?? "-"}:${pending}`;
    if (key === drawn) return;
    drawn = key;
    title.textContent = kindName(game.kind);
    document.title = `${title.textContent} · Ludothèque`;
    who.textContent = game.seats
      .map((s) => (s.index === seat?.seat ? t("play.you", { name: s.name }) : s.open ? t("play.openSeat") : s.name))
      .join(" · ");
    status.textContent = statusText(game, seat);
    status.dataset["status"] = game.status === GameStatus.FINISHED ? "finished" : game.toAct.includes(seat?.seat ?? -1) ? "your-turn" : "waiting";
    renderSeatSwitch();
    const myTurn = seat !== undefined && game.toAct.includes(seat.seat);
    fill(
      boardBox,
      boardFor(game.kind).render({
        kind: game.kind,
        view: game.view,
        legalCommands: myTurn ? game.legalCommands : [],
        seats: game.seats,
        viewerSeat: seat?.seat,
        onCommand: seat ? play : undefined,
        pending,
      }),
    );
  }

  function renderSeatSwitch(): void {
    if (held.length < 2) {
      seatSwitch.replaceChildren();
      return;
    }
    const select = h(
      "select",
      { attrs: { id: "seat-select" }, on: { change: () => switchSeat(Number(select.value)) } },
      ...held.map((s) => h("option", { attrs: { value: s.seat, selected: s.seat === seat?.seat } }, s.name)),
    );
    fill(seatSwitch, h("label", { attrs: { for: "seat-select" } }, t("play.playingAs")), select);
  }

  function switchSeat(index: number): void {
    seat = held.find((s) => s.seat === index) ?? seat;
    void refresh();
  }

  // One GetGame at a time; events arriving meanwhile ask for one more afterwards.
  let refreshing: Promise<void> | undefined;
  let again = false;
  async function refresh(): Promise<void> {
    if (refreshing) {
      again = true;
      return refreshing;
    }
    refreshing = (async () => {
      do {
        again = false;
        try {
          game = await caller().getGame(gameId);
          // Several seats at one screen: the one whose turn it is plays.
          if (seat && !game.toAct.includes(seat.seat)) {
            const next = held.find((s) => game?.toAct.includes(s.seat));
            if (next) {
              seat = next;
              announce(t("play.nowPlaying", { name: next.name }));
              game = await caller().getGame(gameId);
            }
          }
          error.textContent = "";
          render();
        } catch (reason) {
          if (abort.signal.aborted) return;
          error.textContent = errorText(reason);
        }
      } while (again && !abort.signal.aborted);
    })();
    try {
      await refreshing;
    } finally {
      refreshing = undefined;
    }
  }

  async function play(command: Command): Promise<void> {
    if (!game || pending) return;
    pending = true;
    render();
    try {
      await caller().act(gameId, command, { expectedVersion: game.version });
    } catch (reason) {
      const stale = reason instanceof ConnectError && reason.code === Code.Aborted;
      if (!stale) error.textContent = errorText(reason);
    } finally {
      pending = false;
    }
    await refresh();
    (boardBox.querySelector("button.move") as HTMLElement | null)?.focus();
  }

  function addEvent(event: Event): void {
    if (event.version <= seen) return;
    seen = event.version;
    const seatName = event.seat !== undefined ? game?.seats[event.seat]?.name : undefined;
    const text = describeEvent(event);
    log.append(
      h(
        "li",
        { attrs: { "data-version": String(event.version) } },
        h("span", { class: "version" }, String(event.version)),
        " ",
        seatName ? h("strong", {}, `${seatName}: `) : null,
        text,
      ),
    );
    const scroller = log.parentElement;
    if (scroller) scroller.scrollTop = scroller.scrollHeight;
  }

  async function follow(): Promise<void> {
    try {
      for await (const event of caller().follow(gameId, { signal: abort.signal })) {
        addEvent(event);
        void refresh();
      }
      await refresh();
    } catch (reason) {
      if (!abort.signal.aborted) error.textContent = errorText(reason);
    }
  }

  void refresh().then(() => {
    title.focus();
    void follow();
  });
  return () => abort.abort();
}

function statusText(game: Game, seat: HeldSeat | undefined): string {
  if (game.status === GameStatus.FINISHED) return game.outcome?.summary || t("play.over");
  if (game.status === GameStatus.OPEN) return t("play.waitingForPlayers");
  if (seat && game.toAct.includes(seat.seat)) return t("play.yourTurn", { name: seat.name });
  const names = game.toAct.map((index) => game.seats[index]?.name ?? String(index));
  return t("play.waitingFor", { names: names.join(", ") });
}
