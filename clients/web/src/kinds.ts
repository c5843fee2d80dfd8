// The game kinds this app offers, from the API's own GameOptions oneof (one case per
// kind), with their names from the catalogs and the seats a new game starts with.
// Phase 2 takes names, seat counts and the rulebooks' presets from GetGameKind.

import { GameOptionsSchema, type DescMessage } from "@ludotheque/client";

import { humanize, lookup } from "./i18n";

export interface Kind {
  /** "mooki", "pirates", "picnic". */
  id: string;
  /** The kind's Options message. */
  options: DescMessage;
}

export function kinds(): Kind[] {
  const oneof = GameOptionsSchema.oneofs.find((o) => o.name === "game");
  return (oneof?.fields ?? []).flatMap((field) =>
    field.fieldKind === "message" ? [{ id: field.name, options: field.message }] : [],
  );
}

export function kindName(kind: string): string {
  return lookup(`kind.${kind}`) ?? humanize(kind);
}

/** The bots a seat may be played by (service: engines' bots), "" for a human. */
export const PLAYERS = ["", "greedy", "random"] as const;

/** A new game's seats: the rulebooks' smallest table, the first seat a human. */
export function defaultSeats(kind: string): { bot: string }[] {
  if (kind === "pirates") return [{ bot: "" }, { bot: "greedy" }, { bot: "random" }];
  return [{ bot: "" }, { bot: "greedy" }];
}
