// The board of any game, drawn from its view alone: what the viewer sees as labelled
// lists. Its moves are all offered in the choice bar under it (play-board.ts), each
// named by the server's words. The fallback for a game without a renderer of its own.
// The fields the game marks as seats show its players' names (views/message.ts).

import { GameViewSchema } from "@ludotheque/client";

import { h } from "../dom";
import { t } from "../i18n";
import { show, viewPayload, type SeatNames } from "../views/message";
import { tree } from "../views/tree";
import type { BoardInput, BoardRenderer } from "./board";
import { seatName } from "./common";

export const genericBoard: BoardRenderer = {
  render(input: BoardInput): HTMLElement {
    const inner = viewPayload(GameViewSchema, input.view);
    return h(
      "div",
      { class: "board generic-board", attrs: { "data-kind": input.kind } },
      h(
        "section",
        { class: "panel view", attrs: { "aria-label": t("board.view") } },
        h("h3", {}, t("board.view")),
        inner ? tree(show(inner.desc, inner.value, true, seatsOf(input))) : h("p", {}, t("board.noView")),
      ),
    );
  },
};

function seatsOf(input: BoardInput): SeatNames {
  return (seat) => (seat < input.seats.length ? seatName(input.seats, seat) : undefined);
}
