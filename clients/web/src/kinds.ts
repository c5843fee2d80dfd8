// The kinds of game the server plays, as GetGameKind / ListGameKinds describe them in
// the page's language: names and summaries, seat counts, bots, options with their
// defaults and the rulebooks' presets, and each game's material (what the boards draw).
// Fetched once per language; each kind's Options message comes from the API's own
// GameOptions oneof (one case per kind).

import { GameOptionsSchema, type DescMessage, type GameKind } from "@ludotheque/client";

import { api } from "./api";
import { humanize, locale, lookup, t } from "./i18n";

const loaded = new Map<string, Promise<GameKind[]>>();
const known = new Map<string, GameKind[]>();

/** Every kind the server plays, in the page's language. */
export function gameKinds(): Promise<GameKind[]> {
  const language = locale();
  let kinds = loaded.get(language);
  if (kinds === undefined) {
    kinds = api().listGameKinds();
    loaded.set(language, kinds);
    kinds.then(
      (found) => known.set(language, found),
      () => loaded.delete(language), // asked again next time
    );
  }
  return kinds;
}

/** One kind's facts (undefined: the server does not play it). */
export async function gameKind(kind: string): Promise<GameKind | undefined> {
  return (await gameKinds()).find((k) => k.kind === kind);
}

/** The kind's Options message (its fields make the lobby's form). */
export function optionsMessage(kind: string): DescMessage | undefined {
  const field = GameOptionsSchema.oneofs.find((o) => o.name === "game")?.fields.find((f) => f.name === kind);
  return field?.fieldKind === "message" ? field.message : undefined;
}

// The robots' levels, as a child says them: easy (random), good (greedy), strong (strong,
// where the kind lists it); a robot the app does not know comes after them, by its name.
const BOT_LEVELS = ["random", "greedy", "strong"];

/** The kind's bots from the easiest to the strongest (the server lists them by name). */
export function botsByLevel<Bot extends { name: string }>(bots: readonly Bot[]): Bot[] {
  const level = (bot: Bot): number => {
    const found = BOT_LEVELS.indexOf(bot.name);
    return found < 0 ? BOT_LEVELS.length : found;
  };
  return [...bots].sort((a, b) => level(a) - level(b) || a.name.localeCompare(b.name));
}

/** A bot's name in the page's language, as a level ("greedy": "the good robot"), else the server's name for it. */
export function botName(bot: string): string {
  return lookup(`lobby.bot.${bot}`) ?? bot;
}

/** The kind's name: the server's words once loaded, else the app's catalog. */
export function kindName(kind: string): string {
  const facts = known.get(locale())?.find((k) => k.kind === kind);
  return facts?.name?.text || lookup(`kind.${kind}`) || humanize(kind);
}

/** A seat's name: the one it was given, else "Player 2" in the page's language (as the
 * server's words call a seat without a name: one name per seat on every page). */
export function seatCalled(name: string, index: number): string {
  return name || t("lobby.playerName", { n: index + 1 });
}
