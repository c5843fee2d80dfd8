// The lobby's "play with anyone": a picture names the player (a child need not type),
// then one tap on a game's picture and name seats them in the game of that kind that
// waits for a player on this server, or starts one (QuickMatch, with the kind's
// defaults); if nobody comes within BOTS_AFTER_SECONDS, a robot takes the seat. The
// seat's token is kept in this browser like any seat's, and the game opens.

import type { GameKind } from "@ludotheque/client";

import { api, errorText, seats as heldSeats } from "../../api";
import { pictureName, picturePicker, type PictureName } from "../../boards/avatars";
import { kindIcon } from "../../boards/icons";
import { h } from "../../dom";
import { t } from "../../i18n";
import { kindName } from "../../kinds";
import { navigate, paths } from "../../router";

export const BOTS_AFTER_SECONDS = 60;

/** The panel: the pictures, then one button per kind of `all`. */
export function quickMatchPanel(all: GameKind[]): HTMLElement {
  let picture: PictureName | undefined;
  const error = h("p", { class: "error", attrs: { role: "alert" } });
  const pictures = picturePicker(t("quick.picture"), undefined, (tapped) => {
    picture = tapped;
  });
  const buttons = all.map((kind) =>
    h(
      "button",
      { class: "quick-kind", attrs: { type: "button", "data-kind": kind.kind } },
      h("span", { class: "kind-icon" }, kindIcon(kind)),
      h("span", {}, kindName(kind.kind)),
    ),
  );
  for (const button of buttons) {
    button.addEventListener("click", () => {
      error.textContent = "";
      for (const each of buttons) each.disabled = true;
      // No picture: no name, which every reader then says as "Player N" in their language.
      const name = picture ? pictureName(picture) : "";
      api()
        .quickMatch(button.dataset["kind"] ?? "", name, { botsAfterSeconds: BOTS_AFTER_SECONDS })
        .then((matched) => {
          heldSeats.add(matched.gameId, { seat: matched.seat, name, token: matched.seatToken, picture });
          navigate(paths.play(matched.gameId));
        })
        .catch((reason: unknown) => {
          error.textContent = errorText(reason);
          for (const each of buttons) each.disabled = false;
        });
    });
  }
  return h(
    "section",
    { class: "panel quick-match", attrs: { "aria-labelledby": "quick-match-title" } },
    h("h2", { attrs: { id: "quick-match-title" } }, t("quick.title")),
    h("p", {}, t("quick.about", { seconds: BOTS_AFTER_SECONDS })),
    h("div", { class: "field" }, h("p", { class: "picture-label" }, t("quick.picture")), pictures),
    h("div", { class: "quick-kinds" }, ...buttons),
    error,
  );
}
