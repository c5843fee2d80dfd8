// The new-game form's choice of game: one radio per kind, with its icon, name, summary
// and how many seats it takes (the first kind chosen).

import type { GameKind } from "@ludotheque/client";

import { kindIcon } from "../../boards/icons";
import { h, uid } from "../../dom";
import { t } from "../../i18n";
import { kindName } from "../../kinds";

/** A radio per kind of `all`; `choose` is told the kind picked. */
export function kindChoices(all: readonly GameKind[], choose: (kind: GameKind) => void): HTMLElement {
  return h("fieldset", { class: "kinds" }, h("legend", {}, t("lobby.game")), ...all.map((kind, index) => kindChoice(kind, index === 0, () => choose(kind))));
}

function kindChoice(kind: GameKind, checked: boolean, chosen: () => void): HTMLElement {
  const id = uid("kind");
  const seats = kind.minSeats === kind.maxSeats ? t("lobby.seatsExactly", { n: kind.minSeats }) : t("lobby.seatsBetween", { min: kind.minSeats, max: kind.maxSeats });
  return h(
    "div",
    { class: "kind-choice" },
    h("input", { attrs: { type: "radio", name: "kind", id, value: kind.kind, checked, "aria-describedby": `${id}-about` }, on: { change: chosen } }),
    h(
      "label",
      { attrs: { for: id } },
      h("span", { class: "kind-icon" }, kindIcon(kind)),
      h("strong", {}, kind.name?.text || kindName(kind.kind)),
      h("span", { class: "kind-about", attrs: { id: `${id}-about` } }, kind.summary?.text ?? ""),
      h("span", { class: "kind-seats" }, seats),
    ),
  );
}
