// Who sits at the table, beside the board: each seat with its player's name, whether
// they are connected (the Play session's presence), a bot's seat as such, and each
// seat's turn clock counting down; while the game waits for players, its join link to
// share (the join code and the game's id in the URL, never a token), and for the host a button that
// starts the game now with bots in the seats nobody took.

import { GameStatus, type Game } from "@ludotheque/client";

import { fill, h } from "../../dom";
import { t } from "../../i18n";
import { seatCalled } from "../../kinds";
import { paths } from "../../router";

export interface TableFacts {
  game: Game;
  /** When `game` came (Date.now()): its clocks count down from then. */
  receivedAt: number;
  /** The seats whose players are connected now. */
  online: readonly number[];
  /** The seats this browser holds. */
  mine: readonly number[];
  /** Set for the host of a game still open: deals it with bots in the empty seats. */
  start?: () => void;
}

export class TablePanel {
  readonly element: HTMLElement;
  private readonly seats = h("ul", { class: "table-seats" });
  private readonly invite = h("div", { class: "invite" });
  private facts: TableFacts | undefined;
  private readonly ticking: number;

  constructor() {
    this.element = h(
      "section",
      { class: "panel table-panel", attrs: { "aria-labelledby": "table-title" } },
      h("h2", { attrs: { id: "table-title" } }, t("table.title")),
      this.invite,
      this.seats,
    );
    // The clocks go down between the server's news (once a second, the text only).
    this.ticking = window.setInterval(() => this.tick(), 1000);
  }

  close(): void {
    window.clearInterval(this.ticking);
  }

  update(facts: TableFacts): void {
    const before = this.facts;
    this.facts = facts;
    const same =
      before !== undefined &&
      before.game === facts.game &&
      before.online.join() === facts.online.join() &&
      before.mine.join() === facts.mine.join() &&
      Boolean(before.start) === Boolean(facts.start);
    if (same) return;
    this.renderInvite(facts);
    fill(this.seats, ...facts.game.seats.map((seat) => this.seatItem(facts, seat.index)));
    this.tick();
  }

  private renderInvite(facts: TableFacts): void {
    const { game } = facts;
    if (game.status !== GameStatus.OPEN || !game.joinCode) {
      if (this.invite.childNodes.length > 0) fill(this.invite);
      return;
    }
    if (this.invite.dataset["code"] === game.joinCode && Boolean(this.invite.querySelector(".start")) === Boolean(facts.start)) return;
    this.invite.dataset["code"] = game.joinCode;
    const link = new URL(paths.join(game.joinCode, game.gameId), location.origin).href;
    const copied = h("span", { class: "copied", attrs: { role: "status" } });
    fill(
      this.invite,
      h("p", {}, t("table.invite")),
      h("p", { class: "join-link" }, h("a", { attrs: { href: link } }, link)),
      h("p", {}, t("table.code"), " ", h("strong", { class: "join-code" }, game.joinCode)),
      h(
        "p",
        { class: "invite-actions" },
        h(
          "button",
          {
            class: "secondary copy",
            attrs: { type: "button" },
            on: {
              click: () => {
                navigator.clipboard?.writeText(link).then(
                  () => (copied.textContent = t("table.copied")),
                  () => (copied.textContent = link),
                );
              },
            },
          },
          t("table.copy"),
        ),
        " ",
        facts.start ? h("button", { class: "primary start", attrs: { type: "button" }, on: { click: facts.start } }, t("table.start")) : null,
        " ",
        copied,
      ),
    );
  }

  private seatItem(facts: TableFacts, index: number): HTMLElement {
    const seat = facts.game.seats[index];
    const mine = facts.mine.includes(index);
    let state: string;
    let words: string;
    if (seat.open) [state, words] = ["open", t("table.open")];
    else if (seat.bot) [state, words] = ["bot", t("table.bot")];
    else if (seat.takenOverBy) [state, words] = ["bot", t("table.takenOver")];
    else if (facts.online.includes(index)) [state, words] = ["online", t("table.online")];
    else [state, words] = ["offline", t("table.offline")];
    const called = seatCalled(seat.name, index);
    const name = seat.open ? t("play.openSeat") : mine ? t("play.you", { name: called }) : called;
    return h(
      "li",
      { class: `table-seat ${state}`, attrs: { "data-seat": index, "data-presence": state } },
      h("span", { class: "presence-dot", attrs: { "aria-hidden": "true" } }),
      h("span", { class: "seat-name" }, name),
      " ",
      h("span", { class: "seat-state muted" }, words),
      " ",
      h("span", { class: "seat-clock", attrs: { "data-clock": "" } }),
    );
  }

  /** Each clock's time left as of now: its `remaining` when the game came, less the time since. */
  private tick(): void {
    const facts = this.facts;
    if (!facts) return;
    for (const item of this.seats.querySelectorAll<HTMLElement>("li[data-seat]")) {
      const clock = facts.game.seats[Number(item.dataset["seat"])]?.clock;
      const box = item.querySelector<HTMLElement>("[data-clock]");
      if (!box) continue;
      if (!clock || facts.game.status !== GameStatus.ACTIVE) {
        box.textContent = "";
        continue;
      }
      const waiting = clock.remaining !== undefined && clock.deadline !== undefined;
      const left = waiting ? Math.max(0, millis(clock.remaining) - (Date.now() - facts.receivedAt)) : millis(clock.bank);
      const text = waiting ? t("table.timeLeft", { time: minutes(left) }) : clock.bank ? t("table.bank", { time: minutes(left) }) : "";
      if (box.textContent !== text) box.textContent = text;
      box.classList.toggle("running", waiting);
    }
  }
}

/** google.protobuf.Duration, as the client decodes it. */
interface Duration {
  seconds: bigint;
  nanos: number;
}

function millis(duration: Duration | undefined): number {
  return duration ? Number(duration.seconds) * 1000 + Math.floor(duration.nanos / 1e6) : 0;
}

/** 75_000 -> "1:15". */
function minutes(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}
