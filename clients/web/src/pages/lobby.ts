// The lobby: start a game (its kind, options and seats, humans and bots), and the games
// being played and finished on this server, each to play (with this browser's seats),
// to watch as a spectator, or to open in the debug panel.

import { GameStatus, ScalarType, Visibility, create, type DescField, type DescMessage, type Game } from "@ludotheque/client";

import { errorText, seats as heldSeats, service } from "../api";
import { announce, fill, h, uid, type Child } from "../dom";
import { lookup, t } from "../i18n";
import { PLAYERS, defaultSeats, kindName, kinds, type Kind } from "../kinds";
import { navigate, paths } from "../router";
import { enumLabel, fieldLabel } from "../views/message";

// Who finds a game made here: listed (in every lobby, names and ages hidden from
// strangers), public (names shown too) or unlisted (only who has its link).
const VISIBILITIES = {
  listed: Visibility.LISTED,
  public: Visibility.PUBLIC,
  unlisted: Visibility.UNLISTED,
} as const;

export function lobbyPage(main: HTMLElement): () => void {
  const abort = new AbortController();
  const title = h("h1", { attrs: { tabindex: -1 } }, t("lobby.title"));
  const lists = h("div", { class: "game-lists" });
  fill(main, h("div", { class: "page lobby" }, title, h("p", { class: "lead" }, t("lobby.lead")), newGameForm(), lists));
  void showGames(lists, abort.signal);
  return () => abort.abort();
}

function newGameForm(): HTMLElement {
  const all = kinds();
  let kind = all[0];
  const error = h("p", { class: "error", attrs: { role: "alert" } });
  const kindChoices = h(
    "fieldset",
    { class: "kinds" },
    h("legend", {}, t("lobby.game")),
    ...all.map((k, index) => {
      const id = uid("kind");
      return h(
        "div",
        { class: "kind-choice" },
        h("input", {
          attrs: { type: "radio", name: "kind", id, value: k.id, checked: index === 0 },
          on: {
            change: () => {
              kind = k;
              renderKind();
            },
          },
        }),
        h("label", { attrs: { for: id } }, kindName(k.id)),
      );
    }),
  );
  const seatList = h("ol", { class: "seats" });
  const addSeat = h("button", { class: "secondary", attrs: { type: "button" }, on: { click: () => seatRow() } }, t("lobby.addSeat"));
  const seatsBox = h("fieldset", { class: "seats-box" }, h("legend", {}, t("lobby.seats")), seatList, addSeat);
  const optionsBox = h("div", { class: "options" });
  const optionsDetails = h("details", {}, h("summary", {}, t("lobby.options")), optionsBox);
  const visibilityId = uid("visibility");
  const visibility = h(
    "select",
    { attrs: { id: visibilityId, name: "visibility" } },
    ...(["listed", "public", "unlisted"] as const).map((choice) =>
      h("option", { attrs: { value: choice } }, t(`lobby.visibility.${choice}`)),
    ),
  ) as HTMLSelectElement;
  const visibilityBox = h(
    "p",
    { class: "visibility" },
    h("label", { attrs: { for: visibilityId } }, t("lobby.visibility")),
    " ",
    visibility,
  );
  const submit = h("button", { class: "primary", attrs: { type: "submit" } }, t("lobby.create"));
  const form = h(
    "form",
    { class: "panel new-game", attrs: { "aria-labelledby": "new-game-title" } },
    h("h2", { attrs: { id: "new-game-title" } }, t("lobby.newGame")),
    kindChoices,
    seatsBox,
    optionsDetails,
    visibilityBox,
    h("div", { class: "actions" }, submit),
    error,
  );

  function seatRow(bot = ""): void {
    const number = seatList.children.length + 1;
    const nameId = uid("seat-name");
    const ageId = uid("seat-age");
    const whoId = uid("seat-who");
    const row = h(
      "li",
      { class: "seat" },
      h("span", { class: "seat-number", attrs: { "aria-hidden": "true" } }, String(number)),
      h("label", { class: "visually-hidden", attrs: { for: nameId } }, t("lobby.seatName", { n: number })),
      h("input", {
        attrs: {
          id: nameId,
          name: "name",
          required: true,
          maxlength: 64,
          autocomplete: "off",
          value: bot ? t("lobby.botName", { n: number }) : t("lobby.playerName", { n: number }),
        },
      }),
      h("label", { attrs: { for: ageId } }, t("lobby.age")),
      h("input", { class: "age", attrs: { id: ageId, name: "age", type: "number", min: 1, max: 120, inputmode: "numeric" } }),
      h("label", { attrs: { for: whoId } }, t("lobby.who")),
      h(
        "select",
        { attrs: { id: whoId, name: "bot" } },
        ...PLAYERS.map((player) =>
          h("option", { attrs: { value: player, selected: player === bot } }, player ? botName(player) : t("lobby.human")),
        ),
      ),
      h(
        "button",
        {
          class: "remove",
          attrs: { type: "button", "aria-label": t("lobby.removeSeat", { n: number }) },
          on: {
            click: () => {
              row.remove();
              (seatList.querySelector("input") as HTMLInputElement | null)?.focus();
            },
          },
        },
        "✕",
      ),
    );
    seatList.append(row);
  }

  function renderKind(): void {
    seatList.replaceChildren();
    for (const seat of defaultSeats(kind.id)) seatRow(seat.bot);
    fill(optionsBox, ...optionFields(kind.options));
  }
  renderKind();

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    error.textContent = "";
    const seats = [...seatList.children].map((row) => {
      const name = (row.querySelector("[name=name]") as HTMLInputElement).value.trim();
      const age = (row.querySelector("[name=age]") as HTMLInputElement).value;
      const bot = (row.querySelector("[name=bot]") as HTMLSelectElement).value;
      return { name, bot, ...(age ? { age: Number(age) } : {}) };
    });
    const options = readOptions(kind, optionsBox);
    submit.disabled = true;
    service
      .createGame(kind.id, seats, { game: { case: kind.id, value: options } } as never, {
        visibility: VISIBILITIES[visibility.value as keyof typeof VISIBILITIES],
      })
      .then((created) => {
        heldSeats.keep(
          created.gameId,
          seats.flatMap((seat, index) => (seat.bot ? [] : [{ seat: index, name: seat.name, token: created.seatTokens[index] }])),
        );
        announce(t("lobby.created"));
        navigate(paths.play(created.gameId));
      })
      .catch((reason: unknown) => {
        error.textContent = errorText(reason);
        submit.disabled = false;
      });
  });
  return form;
}

/** A form control for each option a person sets (scalars, enums, lists of enums). */
function optionFields(desc: DescMessage): HTMLElement[] {
  const controls: HTMLElement[] = [];
  for (const field of desc.fields) {
    const id = uid("option");
    const label = fieldLabel(field.name);
    if (field.fieldKind === "scalar" && field.scalar === ScalarType.BOOL) {
      controls.push(
        h("div", { class: "option check" }, h("input", { attrs: { type: "checkbox", id, "data-field": field.localName } }), h("label", { attrs: { for: id } }, label)),
      );
    } else if (field.fieldKind === "scalar") {
      controls.push(
        h(
          "div",
          { class: "option" },
          h("label", { attrs: { for: id } }, label),
          h("input", { attrs: { type: "number", min: 0, id, "data-field": field.localName, placeholder: t("lobby.default") } }),
        ),
      );
    } else if (field.fieldKind === "enum") {
      controls.push(
        h(
          "div",
          { class: "option" },
          h("label", { attrs: { for: id } }, label),
          h(
            "select",
            { attrs: { id, "data-field": field.localName } },
            ...field.enum.values.map((value) =>
              h("option", { attrs: { value: value.number } }, value.number === 0 ? t("lobby.default") : enumLabel(value.localName)),
            ),
          ),
        ),
      );
    } else if (field.fieldKind === "list" && field.listKind === "enum") {
      controls.push(
        h(
          "fieldset",
          { class: "option several", attrs: { "data-field": field.localName } },
          h("legend", {}, label),
          ...field.enum.values
            .filter((value) => value.number !== 0)
            .map((value) => {
              const valueId = uid("option");
              return h(
                "div",
                { class: "check" },
                h("input", { attrs: { type: "checkbox", id: valueId, value: value.number } }),
                h("label", { attrs: { for: valueId } }, enumLabel(value.localName)),
              );
            }),
        ),
      );
    }
    // Lists of messages (Mooki's custom star table) are left to the API for now:
    // phase 2 offers the rulebooks' presets from GetGameKind.
  }
  return controls;
}

function readOptions(kind: Kind, box: HTMLElement): unknown {
  const values: Record<string, unknown> = {};
  for (const field of kind.options.fields) {
    const element = box.querySelector<HTMLElement>(`[data-field="${field.localName}"]`);
    if (element === null) continue;
    const value = fieldValue(field, element);
    if (value !== undefined) values[field.localName] = value;
  }
  return create(kind.options, values as never);
}

function fieldValue(field: DescField, element: HTMLElement): unknown {
  if (element instanceof HTMLInputElement && element.type === "checkbox") return element.checked;
  if (element instanceof HTMLInputElement) return element.value === "" ? undefined : Number(element.value);
  if (element instanceof HTMLSelectElement) return Number(element.value);
  if (field.fieldKind === "list") {
    return [...element.querySelectorAll<HTMLInputElement>("input:checked")].map((input) => Number(input.value));
  }
  return undefined;
}

async function showGames(box: HTMLElement, signal: AbortSignal): Promise<void> {
  const active = h("section", { class: "panel", attrs: { "aria-labelledby": "active-title" } }, h("h2", { attrs: { id: "active-title" } }, t("lobby.active")));
  const finished = h("section", { class: "panel", attrs: { "aria-labelledby": "finished-title" } }, h("h2", { attrs: { id: "finished-title" } }, t("lobby.finished")));
  fill(box, active, finished);
  try {
    const [playing, over] = await Promise.all([
      service.client.listGames({ status: GameStatus.ACTIVE, pageSize: 20 }, { signal }),
      service.client.listGames({ status: GameStatus.FINISHED, pageSize: 20 }, { signal }),
    ]);
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
  const players: Child[] = game.seats.map((seat) => (seat.bot ? `${seat.name} (${botName(seat.bot)})` : seat.name));
  const finished = game.status === GameStatus.FINISHED;
  const about = finished ? game.outcome?.summary ?? t("lobby.over") : t("lobby.moves", { n: game.version });
  const open = held.length > 0 && !finished ? t("lobby.play") : t("lobby.watch");
  return h(
    "li",
    { class: "game-item", attrs: { "data-game": game.gameId } },
    h("div", { class: "game-title" }, h("strong", {}, kindName(game.kind)), " · ", players.join(", ")),
    h("div", { class: "game-about muted" }, about),
    h(
      "div",
      { class: "game-links" },
      h("a", { class: "button", attrs: { href: paths.play(game.gameId), "aria-label": `${open}: ${kindName(game.kind)}, ${players.join(", ")}` } }, open),
      h("a", { class: "button secondary", attrs: { href: paths.debug(game.gameId), "aria-label": `${t("lobby.debug")}: ${kindName(game.kind)}, ${players.join(", ")}` } }, t("lobby.debug")),
    ),
  );
}

function botName(bot: string): string {
  return lookup(`lobby.bot.${bot}`) ?? bot;
}
