// Kind-generic helpers: the game kinds come from the API itself (the GameOptions
// envelope has one field per kind), so a game added to proto/ is tested at once.

import { Code, ConnectError } from "@connectrpc/connect";

import type { GameOptionsInit, Ludotheque, SeatInit } from "../../src/ludotheque.js";
import { BadRequestSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { GameOptionsSchema } from "../../src/gen/ludotheque/v1/game_pb.js";
import type { CreateGameResponse } from "../../src/gen/ludotheque/v1/game_service_pb.js";

/** Every game kind of the API: the fields of the GameOptions oneof ("mooki", ...). */
export function gameKinds(): string[] {
  const [game] = GameOptionsSchema.oneofs;
  if (game === undefined) throw new Error("GameOptions has no oneof");
  return game.fields.map((field) => field.name);
}

/** A game of `kind` with one human seat (seat 0) and as few `random` bots as the
 * kind accepts: seat counts are tried from 1 up while the server says the count is wrong. */
/** Options that keep a test's game short, for the kinds whose games run long by
 * default (a Pirates race to an island one space away: one round). */
const SHORT_GAMES: Record<string, GameOptionsInit> = {
  pirates: { game: { case: "pirates", value: { islandDistance: 1 } } },
};

export async function createWithBots(lobby: Ludotheque, kind: string, maxSeats = 8): Promise<CreateGameResponse> {
  let last: ConnectError | undefined;
  for (let count = 1; count <= maxSeats; count++) {
    const seats: SeatInit[] = [{ name: "Human", age: 30 }];
    for (let bot = 1; bot < count; bot++) seats.push({ name: `Bot ${bot}`, age: 10 + bot, bot: "random" });
    try {
      return await lobby.createGame(kind, seats, SHORT_GAMES[kind]);
    } catch (reason) {
      const error = ConnectError.from(reason);
      const aboutSeats = error
        .findDetails(BadRequestSchema)
        .some((request) => request.fieldViolations.some((violation) => violation.field === "seats"));
      if (error.code !== Code.InvalidArgument || !aboutSeats) throw error;
      last = error;
    }
  }
  throw new Error(`no seat count from 1 to ${maxSeats} makes a ${kind} game: ${last?.message}`);
}

/** A small deterministic random generator (mulberry32), so a failing game replays. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("nothing to pick from");
  return item;
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
