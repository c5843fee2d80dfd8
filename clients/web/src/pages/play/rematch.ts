// The rematch in one click: every seat this browser holds asks PlayAgain with its token
// (the first call deals the rematch, with the same seats, options and clock; the others
// get their seat in it), or takes the seat the Play session was already offered when
// another player asked first. The new tokens are kept like any seat's.

import type { PlayRematch } from "@ludotheque/client";

import { api, seats as heldSeats, type HeldSeat } from "../../api";

/** The rematch of `gameId` for the `held` seats; its game id ("" when no seat is held). */
export async function playAgain(gameId: string, held: readonly HeldSeat[], offered: (seat: HeldSeat) => PlayRematch | undefined): Promise<string> {
  let next = "";
  const seatsThere: HeldSeat[] = [];
  for (const one of held) {
    const offer = offered(one);
    if (offer?.seatToken) {
      next = offer.gameId;
      seatsThere.push({ ...one, token: offer.seatToken });
      continue;
    }
    const answer = await api(one.token).playAgain(gameId);
    next = answer.gameId;
    seatsThere.push({ ...one, seat: answer.seat ?? one.seat, token: answer.seatToken });
  }
  if (next) heldSeats.keep(next, seatsThere);
  return next;
}
