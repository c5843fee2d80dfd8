// The lobby's new-game form: its parts (the game, the ways to play, the seats, the
// options, the settings) put together; what was chosen goes to CreateGame, the seats'
// tokens are kept in this browser, and the game opens.

import type { GameKind } from "@ludotheque/client";

import { api, errorText, hosts, seats as heldSeats } from "../../api";
import { announce, fill, h } from "../../dom";
import { t } from "../../i18n";
import { optionsMessage } from "../../kinds";
import { navigate, paths } from "../../router";
import { kindChoices } from "./kind-choices";
import { OptionsForm } from "./options-form";
import { PresetChoices } from "./presets";
import { SeatList } from "./seat-list";
import { GameSettings } from "./settings";

/** The form, for a game of one of `all` (the first chosen). */
export function newGameForm(all: GameKind[]): HTMLElement {
  let kind = all[0];
  let options: OptionsForm | undefined;
  const kinds = kindChoices(all, (chosen) => {
    kind = chosen;
    showKind();
  });
  const presets = new PresetChoices();
  const seats = new SeatList();
  const optionsBox = h("div", { class: "options" });
  const settings = new GameSettings();
  const submit = h("button", { class: "primary", attrs: { type: "submit" } }, t("lobby.create"));
  const error = h("p", { class: "error", attrs: { role: "alert" } });
  const form = h(
    "form",
    { class: "panel new-game", attrs: { "aria-labelledby": "new-game-title" } },
    h("h2", { attrs: { id: "new-game-title" } }, t("lobby.newGame")),
    kinds,
    seats.element,
    // Start comes before the ways to play and the options: the first game starts from
    // the first screen, with what the rules say.
    h("div", { class: "start-row" }, submit),
    error,
    presets.element,
    h("details", {}, h("summary", {}, t("lobby.options")), optionsBox),
    h("div", { class: "settings" }, ...settings.elements),
  );

  /** The seats, options and presets of the kind chosen, as it first comes. */
  function showKind(): void {
    seats.reset(kind);
    const desc = optionsMessage(kind.kind);
    options = desc ? new OptionsForm(kind, desc) : undefined;
    fill(optionsBox, options?.element ?? null);
    presets.show(kind, options);
  }

  showKind();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    error.textContent = "";
    submit.disabled = true;
    createGame(kind, seats, options, settings).catch((reason: unknown) => {
      error.textContent = errorText(reason);
      submit.disabled = false;
    });
  });
  return form;
}

/** CreateGame with what the form says; keeps the seats' tokens (and the host's) and opens the game. */
async function createGame(kind: GameKind, seatList: SeatList, options: OptionsForm | undefined, settings: GameSettings): Promise<void> {
  const seats = seatList.read();
  const created = await api().createGame(kind.kind, seats.map(({ picture: _, ...seat }) => seat), options?.read(), settings.read());
  heldSeats.keep(
    created.gameId,
    seats.flatMap((seat, index) => (seat.bot || seat.open ? [] : [{ seat: index, name: seat.name, token: created.seatTokens[index], picture: seat.picture }])),
  );
  hosts.keep(created.gameId, created.hostToken);
  announce(t("lobby.created"));
  navigate(paths.play(created.gameId));
}
