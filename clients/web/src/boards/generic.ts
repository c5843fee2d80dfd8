// The board of any game, drawn from its view alone: what the viewer sees as labelled
// lists, and every legal move as a button named in words. It plays every game today and
// stays the fallback for a game without a renderer of its own.

import { GameViewSchema } from "@ludotheque/client";

import { h } from "../dom";
import { t } from "../i18n";
import { describeCommand, show, viewPayload } from "../views/message";
import { tree } from "../views/tree";
import type { BoardInput, BoardRenderer } from "./board";

export const genericBoard: BoardRenderer = {
  render(input: BoardInput): HTMLElement {
    const inner = viewPayload(GameViewSchema, input.view);
    const view = h(
      "section",
      { class: "panel view", attrs: { "aria-labelledby": "board-view-title" } },
      h("h2", { attrs: { id: "board-view-title" } }, t("board.view")),
      inner ? tree(show(inner.desc, inner.value)) : h("p", {}, t("board.noView")),
    );
    const moves = h(
      "section",
      { class: "panel moves", attrs: { "aria-labelledby": "board-moves-title" } },
      h("h2", { attrs: { id: "board-moves-title" } }, t("board.moves")),
    );
    if (input.legalCommands.length === 0 && !input.onCommand && input.viewerSeat === undefined) {
      return h("div", { class: "board generic-board", attrs: { "data-kind": input.kind } }, view);
    }
    if (input.legalCommands.length === 0) {
      moves.append(h("p", { class: "muted" }, input.onCommand ? t("board.waiting") : t("board.noMoves")));
    } else {
      const list = h("ul", { class: "move-list" });
      for (const command of input.legalCommands) {
        const label = describeCommand(command);
        const onCommand = input.onCommand;
        list.append(
          h(
            "li",
            {},
            onCommand
              ? h(
                  "button",
                  {
                    class: "move",
                    attrs: { type: "button", disabled: input.pending === true, "data-move": label },
                    on: { click: () => onCommand(command) },
                  },
                  label,
                )
              : h("span", { class: "move read-only" }, label),
          ),
        );
      }
      moves.append(list);
    }
    return h("div", { class: "board generic-board", attrs: { "data-kind": input.kind } }, moves, view);
  },
};
