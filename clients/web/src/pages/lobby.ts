// The lobby: start a game from what GetGameKind says of each kind (its name and
// summary, how many seats, its bots, its options with their defaults, and the
// rulebooks' presets as one-click ways to play), and the games being played and
// finished on this server, each to play (with this browser's seats), to watch as a
// spectator, or to open in the debug panel.

import { GameStatus, Visibility, type Game, type GameKind } from "@ludotheque/client";

import { api, errorText, hosts, seats as heldSeats } from "../api";
import { announce, fill, h, uid, type Child } from "../dom";
import { lookup, t } from "../i18n";
import { gameKinds, kindName, optionsMessage } from "../kinds";
import { navigate, paths } from "../router";
import { kindIcon } from "../boards/icons";
import { OptionsForm } from "./options-form";

// Who finds a game made here: listed (in every lobby, names and ages hidden from
// strangers), public (names shown too) or unlisted (only who has its link).
// The seat chooser's value for a seat left open for a friend to join (not a bot's name).
const OPEN = "open";
// The turn clocks offered: none, or so many seconds a turn (then a bot plays the turn).
const CLOCKS = [0, 30, 60, 300] as const;

const VISIBILITIES = {
  listed: Visibility.LISTED,
  public: Visibility.PUBLIC,
  unlisted: Visibility.UNLISTED,
} as const;

export function lobbyPage(main: HTMLElement): () => void {
  const abort = new AbortController();
  const title = h("h1", { attrs: { tabindex: -1 } }, t("lobby.title"));
  const formBox = h("div", { class: "new-game-box" }, h("p", { class: "muted" }, t("lobby.loadingKinds")));
  const lists = h("div", { class: "game-lists" });
  fill(main, h("div", { class: "page lobby" }, title, h("p", { class: "lead" }, t("lobby.lead")), formBox, lists));
  gameKinds().then(
    (kinds) => {
      if (!abort.signal.aborted) fill(formBox, newGameForm(kinds));
    },
    (reason: unknown) => {
      if (!abort.signal.aborted) fill(formBox, h("p", { class: "error", attrs: { role: "alert" } }, errorText(reason)));
    },
  );
  void showGames(lists, abort.signal);
  return () => abort.abort();
}

function newGameForm(all: GameKind[]): HTMLElement {
  let kind = all[0];
  let options: OptionsForm | undefined;
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
          attrs: { type: "radio", name: "kind", id, value: k.kind, checked: index === 0, "aria-describedby": `${id}-about` },
          on: {
            change: () => {
              kind = k;
              renderKind();
            },
          },
        }),
        h(
          "label",
          { attrs: { for: id } },
          h("span", { class: "kind-icon" }, kindIcon(k)),
          h("strong", {}, k.name?.text || kindName(k.kind)),
          h("span", { class: "kind-about", attrs: { id: `${id}-about` } }, k.summary?.text ?? ""),
          h("span", { class: "kind-seats" }, k.minSeats === k.maxSeats ? t("lobby.seatsExactly", { n: k.minSeats }) : t("lobby.seatsBetween", { min: k.minSeats, max: k.maxSeats })),
        ),
      );
    }),
  );
  const presets = h("fieldset", { class: "presets" });
  const seatList = h("ol", { class: "seats" });
  const addSeat = h("button", { class: "secondary", attrs: { type: "button" }, on: { click: () => (seatRow(""), updateSeatButtons()) } }, t("lobby.addSeat"));
  const seatsBox = h("fieldset", { class: "seats-box" }, h("legend", {}, t("lobby.seats")), seatList, addSeat);
  const optionsBox = h("div", { class: "options" });
  const optionsDetails = h("details", {}, h("summary", {}, t("lobby.options")), optionsBox);
  const visibilityId = uid("visibility");
  const visibility = h(
    "select",
    { attrs: { id: visibilityId, name: "visibility" } },
    ...(["listed", "public", "unlisted"] as const).map((choice) => h("option", { attrs: { value: choice } }, t(`lobby.visibility.${choice}`))),
  ) as HTMLSelectElement;
  const clockId = uid("clock");
  const clock = h(
    "select",
    { attrs: { id: clockId, name: "clock" } },
    ...CLOCKS.map((seconds) => h("option", { attrs: { value: seconds } }, seconds ? t("lobby.clockSeconds", { n: seconds }) : t("lobby.noClock"))),
  ) as HTMLSelectElement;
  const submit = h("button", { class: "primary", attrs: { type: "submit" } }, t("lobby.create"));
  const form = h(
    "form",
    { class: "panel new-game", attrs: { "aria-labelledby": "new-game-title" } },
    h("h2", { attrs: { id: "new-game-title" } }, t("lobby.newGame")),
    kindChoices,
    presets,
    seatsBox,
    optionsDetails,
    h("p", { class: "visibility" }, h("label", { attrs: { for: visibilityId } }, t("lobby.visibility")), " ", visibility),
    h("p", { class: "clock" }, h("label", { attrs: { for: clockId } }, t("lobby.clock")), " ", clock),
    h("div", { class: "actions" }, submit),
    error,
  );

  function seatRow(bot: string): void {
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
        attrs: { id: nameId, name: "name", required: true, maxlength: 64, autocomplete: "off", value: bot ? t("lobby.botName", { n: number }) : t("lobby.playerName", { n: number }) },
      }),
      h("label", { attrs: { for: ageId } }, t("lobby.age")),
      h("input", { class: "age", attrs: { id: ageId, name: "age", type: "number", min: 1, max: 120, inputmode: "numeric" } }),
      h("label", { attrs: { for: whoId } }, t("lobby.who")),
      h(
        "select",
        { attrs: { id: whoId, name: "bot" } },
        h("option", { attrs: { value: "", selected: bot === "" } }, t("lobby.human")),
        h("option", { attrs: { value: OPEN, selected: bot === OPEN } }, t("lobby.openSeat")),
        ...kind.bots.map((b) => h("option", { attrs: { value: b.name, selected: b.name === bot, title: b.description?.text ?? "" } }, botName(b.name))),
      ),
      h(
        "button",
        {
          class: "remove",
          attrs: { type: "button", "aria-label": t("lobby.removeSeat", { n: number }) },
          on: {
            click: () => {
              row.remove();
              updateSeatButtons();
              (seatList.querySelector("input") as HTMLInputElement | null)?.focus();
            },
          },
        },
        "✕",
      ),
    );
    seatList.append(row);
    // An open seat's player gives their own name and age when they join.
    const who = row.querySelector("select") as HTMLSelectElement;
    const typed = [...row.querySelectorAll("input")];
    const openOrNot = (): void => {
      for (const input of typed) input.disabled = who.value === OPEN;
    };
    who.addEventListener("change", openOrNot);
    openOrNot();
  }

  function updateSeatButtons(): void {
    const n = seatList.children.length;
    addSeat.disabled = n >= kind.maxSeats;
    for (const remove of seatList.querySelectorAll<HTMLButtonElement>("button.remove")) remove.disabled = n <= kind.minSeats;
  }

  function renderKind(): void {
    seatList.replaceChildren();
    const bot = kind.bots.find((b) => b.name === "greedy")?.name ?? kind.bots[0]?.name ?? "";
    for (let index = 0; index < Math.max(kind.minSeats, 1); index++) seatRow(index === 0 ? "" : bot);
    updateSeatButtons();
    const desc = optionsMessage(kind.kind);
    options = desc ? new OptionsForm(kind, desc) : undefined;
    fill(optionsBox, options?.element ?? null);
    renderPresets();
  }

  function renderPresets(): void {
    const name = `preset-${kind.kind}`;
    const choice = (preset: string, label: string, about: string, apply: () => void, checked: boolean): HTMLElement => {
      const id = uid("preset");
      return h(
        "div",
        { class: "preset-choice" },
        h("input", { attrs: { type: "radio", name, id, checked, "data-preset": preset }, on: { change: apply } }),
        h("label", { attrs: { for: id } }, h("strong", {}, label), about ? h("span", { class: "kind-about" }, about) : null),
      );
    };
    const items: Child[] = [choice("", t("lobby.asTheRulesSay"), t("lobby.asTheRulesSayAbout"), () => options?.reset(), true)];
    for (const preset of kind.presets) {
      items.push(choice(preset.name, preset.description?.text || presetTitle(preset.name), "", () => options?.apply(preset.options), false));
    }
    fill(presets, h("legend", {}, t("lobby.waysToPlay")), h("div", { class: "preset-row" }, ...items));
  }

  renderKind();

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    error.textContent = "";
    const seats = [...seatList.children].map((row) => {
      const name = (row.querySelector("[name=name]") as HTMLInputElement).value.trim();
      const age = (row.querySelector("[name=age]") as HTMLInputElement).value;
      const bot = (row.querySelector("[name=bot]") as HTMLSelectElement).value;
      if (bot === OPEN) return { name: "", bot: "", open: true };
      return { name, bot, open: false, ...(age ? { age: Number(age) } : {}) };
    });
    submit.disabled = true;
    const turnSeconds = Number(clock.value);
    api()
      .createGame(kind.kind, seats, options?.read(), {
        visibility: VISIBILITIES[visibility.value as keyof typeof VISIBILITIES],
        ...(turnSeconds ? { clock: { turnSeconds } } : {}),
      })
      .then((created) => {
        heldSeats.keep(
          created.gameId,
          seats.flatMap((seat, index) => (seat.bot || seat.open ? [] : [{ seat: index, name: seat.name, token: created.seatTokens[index] }])),
        );
        hosts.keep(created.gameId, created.hostToken);
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

/** "first_game" -> "First game", when the catalog has no better words. */
function presetTitle(name: string): string {
  const words = name.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

async function showGames(box: HTMLElement, signal: AbortSignal): Promise<void> {
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
  const about = finished ? game.outcome?.summary || t("lobby.over") : waiting ? t("play.waitingForPlayers") : t("lobby.moves", { n: game.version });
  const open = held.length > 0 && !finished ? t("lobby.play") : t("lobby.watch");
  const label = `${kindName(game.kind)}, ${players.join(", ")}`;
  const join =
    waiting && held.length === 0 && game.joinCode
      ? h("a", { class: "button", attrs: { href: paths.join(game.joinCode), "aria-label": `${t("lobby.join")}: ${label}` } }, t("lobby.join"))
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
      h("a", { class: "button secondary", attrs: { href: paths.debug(game.gameId), "aria-label": `${t("lobby.debug")}: ${kindName(game.kind)}, ${players.join(", ")}` } }, t("lobby.debug")),
    ),
  );
}

function botName(bot: string): string {
  return lookup(`lobby.bot.${bot}`) ?? bot;
}
