// Who is who in a timeline, in words: a seat's player, or a viewer (the admin, a spectator, a seat).

import { t } from "../../i18n";
import type { Timeline, ViewerId } from "../../debug/timeline";

/** A seat's player's name ("the game" for an event of no seat). */
export function seatName(timeline: Timeline, seat: number | undefined): string {
  if (seat === undefined) return t("debug.theGame");
  return timeline.seats[seat]?.name ?? t("debug.seat", { n: seat });
}

export function viewerName(timeline: Timeline, viewer: ViewerId): string {
  if (viewer === "admin") return t("debug.asAdmin");
  if (viewer === "spectator") return t("debug.asSpectator");
  return t("debug.asSeat", { name: seatName(timeline, viewerSeat(viewer)) });
}

/** The seat a viewer sits in (undefined: the admin or a spectator). */
export function viewerSeat(viewer: ViewerId): number | undefined {
  return viewer.startsWith("seat:") ? Number(viewer.slice(5)) : undefined;
}
