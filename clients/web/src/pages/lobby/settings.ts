// The new-game form's settings: who finds the game (listed, public or unlisted), and its
// turn clock (none, or so many seconds a turn).

import { Visibility, type CreateGameMore } from "@ludotheque/client";

import { h, uid } from "../../dom";
import { t } from "../../i18n";

// Who finds a game made here: listed (in every lobby, names and ages hidden from
// strangers), public (names shown too) or unlisted (only who has its link).
const VISIBILITIES = {
  listed: Visibility.LISTED,
  public: Visibility.PUBLIC,
  unlisted: Visibility.UNLISTED,
} as const;
// The turn clocks offered: none, or so many seconds a turn (then a bot plays the turn).
const CLOCKS = [0, 30, 60, 300] as const;

export class GameSettings {
  /** The visibility's line and the clock's, in their order. */
  readonly elements: HTMLElement[];
  private readonly visibility: HTMLSelectElement;
  private readonly clock: HTMLSelectElement;

  constructor() {
    const visibilityId = uid("visibility");
    this.visibility = h(
      "select",
      { attrs: { id: visibilityId, name: "visibility" } },
      ...(["listed", "public", "unlisted"] as const).map((choice) => h("option", { attrs: { value: choice } }, t(`lobby.visibility.${choice}`))),
    );
    const clockId = uid("clock");
    this.clock = h(
      "select",
      { attrs: { id: clockId, name: "clock" } },
      ...CLOCKS.map((seconds) => h("option", { attrs: { value: seconds } }, seconds ? t("lobby.clockSeconds", { n: seconds }) : t("lobby.noClock"))),
    );
    this.elements = [
      h("p", { class: "visibility" }, h("label", { attrs: { for: visibilityId } }, t("lobby.visibility")), " ", this.visibility),
      h("p", { class: "clock" }, h("label", { attrs: { for: clockId } }, t("lobby.clock")), " ", this.clock),
    ];
  }

  /** The settings as CreateGame takes them. */
  read(): CreateGameMore {
    const turnSeconds = Number(this.clock.value);
    return {
      visibility: VISIBILITIES[this.visibility.value as keyof typeof VISIBILITIES],
      ...(turnSeconds ? { clock: { turnSeconds } } : {}),
    };
  }
}
