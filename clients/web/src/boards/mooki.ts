// Mooki Island's table: the two draw piles with the face showing on top of each, the
// card being played (both faces for the one who drew it), each player's collection
// (its top card while playing; every card by family once the game is over), the five
// trophies with their stars, and who won them — a trophy the Spider took drawn as gone,
// its stars not counted. Choices on the table: a pile to draw from, the face of the
// drawn card to keep, the trophy to give back to the Spider. What moves: the card drawn
// comes from its pile, the card placed goes onto its collection, the trophies go to
// their winners.

import { FaceKind, FamilySchema, Phase, SideSchema, Side, type Face, type View } from "@ludotheque/client/gen/ludotheque/mooki/v1/mooki_pb";
import type { Material } from "@ludotheque/client/gen/ludotheque/mooki/v1/material_pb";

import { h, type Child } from "../dom";
import { t } from "../i18n";
import type { BoardInput, BoardRenderer, EventMoves } from "./board";
import type { Offer } from "./choices";
import { enumName, gameView, material, named, piece, pieceOrChoice, seatName } from "./common";
import { cardBack, faceName, familyLook, mookiCard, trophy } from "./mooki-art";

export const mookiBoard: BoardRenderer = {
  render(input: BoardInput): HTMLElement {
    const view = gameView(input.view, "mooki");
    const facts = material(input.facts, "mooki");
    const board = h("div", { class: "board mooki-board", attrs: { "data-kind": "mooki" } });
    if (view === undefined) return board;
    const me = input.viewerSeat ?? 0;
    const seats = [...Array(Math.max(2, view.collections.length)).keys()];
    const others = seats.filter((seat) => seat !== me);
    for (const seat of others) board.append(seatArea(input, view, facts, seat, "opponent"));
    board.append(table(input, view, facts), trophies(input, view, facts), seatArea(input, view, facts, me, "mine"));
    if (view.result) board.classList.add("over");
    return board;
  },

  moves(event): EventMoves {
    const happened = event.game.case === "mooki" ? event.game.value.kind : undefined;
    switch (happened?.case) {
      case "cardDrawn":
        return { motions: [{ kind: "travel", from: `pile:${happened.value.pile}`, to: "drawn" }] };
      case "cardPlaced":
        return { motions: [{ kind: "travel", from: "drawn", to: `collection:${happened.value.collectionSeat}` }] };
      case "trophiesAwarded":
        return { motions: happened.value.families.filter((f) => f.winner !== undefined).map((f) => ({ kind: "travel" as const, from: `trophy:${f.family}`, to: `trophy:${f.family}` })) };
      case "trophyDiscarded":
        return { motions: [{ kind: "pop", piece: `trophy:${happened.value.family}` }] };
      default:
        return { motions: [] };
    }
  },
};

function table(input: BoardInput, view: View, facts: Material | undefined): HTMLElement {
  const piles = view.piles.map((pile, index) => {
    const name = facts?.piles.find((p) => p.pile === index)?.name?.text ?? String(index);
    const top = pile.size > 0 ? faceName(facts, pile.top) : t("mooki.empty");
    const label = t("mooki.pile", { name, n: pile.size, top });
    const art: Child[] = pile.size > 0 ? [h("span", { class: "stack-under", attrs: { "aria-hidden": "true" } }), mookiCard(facts, pile.top)] : [h("span", { class: "empty-slot" })];
    return h(
      "div",
      { class: "mooki-pile" },
      named(pieceOrChoice(input.offer, "pile", String(index), "card stack", label, art, "pile"), `pile:${index}`),
      h("span", { class: "caption" }, t("mooki.pileCaption", { name, n: pile.size })),
    );
  });
  const middle = h("div", { class: "mooki-drawn" }, drawnCard(input, view, facts));
  return h("section", { class: "mooki-table", attrs: { "aria-label": t("mooki.table") } }, piles[0] ?? null, middle, piles[1] ?? null);
}

function drawnCard(input: BoardInput, view: View, facts: Material | undefined): HTMLElement {
  const drawn = view.drawn;
  if (drawn === undefined) return h("p", { class: "muted hint", attrs: { "data-anchor": "drawn" } }, view.phase === Phase.DRAW ? t("mooki.toDraw") : "");
  const who = seatName(input.seats, drawn.seat);
  const faces = [
    { side: Side.SHOWN, face: drawn.shown, caption: t("mooki.wasOnTop") },
    { side: Side.HIDDEN, face: drawn.hidden, caption: t("mooki.wasUnderneath") },
  ];
  return h(
    "div",
    { class: "drawn-card" },
    h("p", { class: "caption" }, t("mooki.drew", { name: who })),
    h(
      "div",
      { class: "faces", attrs: { "data-anchor": "drawn" } },
      ...faces.map(({ side, face, caption }) =>
        h(
          "div",
          { class: "face" },
          pieceOrChoice(input.offer, "side", enumName(SideSchema, side), "card", `${caption}: ${faceName(facts, face)}`, [mookiCard(facts, face)], "side"),
          h("span", { class: "caption" }, caption),
        ),
      ),
    ),
  );
}

/** The trophies nobody holds: all five until the scoring, then those of a tie. */
function trophies(input: BoardInput, view: View, facts: Material | undefined): HTMLElement {
  const won = new Set((view.scoring?.families ?? []).filter((f) => f.winner !== undefined).map((f) => f.family));
  const left = view.stars.filter((trophyStars) => !won.has(trophyStars.family));
  const tied = view.scoring !== undefined;
  const items = left.map((trophyStars) => {
    const name = familyLook(facts, trophyStars.family).name;
    const shown = piece("trophy", t(tied ? "mooki.trophyTied" : "mooki.trophy", { family: name, stars: trophyStars.stars }), trophy(facts, trophyStars.family, trophyStars.stars));
    return named(shown, `trophy:${trophyStars.family}`, true);
  });
  const gone = view.discarded;
  return h(
    "section",
    { class: "mooki-trophies", attrs: { "aria-label": t("mooki.trophies") } },
    h("h3", {}, tied ? (items.length > 0 ? t("mooki.trophiesTied") : t("mooki.trophies")) : t("mooki.trophiesToWin")),
    items.length > 0 ? h("div", { class: "trophy-row" }, ...items) : h("p", { class: "muted" }, t("mooki.allWon")),
    gone ? h("p", { class: "spider-took" }, t("mooki.trophyGone", { name: seatName(input.seats, gone.seat), family: familyLook(facts, gone.family).name })) : null,
  );
}

function starsOf(view: View, family: number): number {
  return view.stars.find((s) => s.family === family)?.stars ?? 0;
}

function seatArea(input: BoardInput, view: View, facts: Material | undefined, seat: number, side: "mine" | "opponent"): HTMLElement {
  const name = seatName(input.seats, seat);
  const collection = view.collections.find((c) => c.seat === seat);
  const active = view.activeSeat === seat && view.result === undefined;
  const result = view.result;
  const heading = h(
    "h3",
    {},
    h("span", { class: "seat-title" }, name, input.viewerSeat === seat ? ` ${t("mooki.you")}` : ""),
    active ? h("span", { class: "turn-badge" }, t("mooki.turn")) : null,
    result && result.winner === seat ? h("span", { class: "win-badge" }, t("mooki.winner")) : null,
  );
  let cards: HTMLElement;
  if (collection === undefined || collection.size === 0) {
    cards = h("div", { class: "collection-stack" }, named(h("span", { class: "empty-slot card" }), `collection:${seat}`), h("span", { class: "caption" }, t("mooki.noCards")));
  } else if (collection.faces.length > 0) {
    cards = byFamily(facts, collection.faces, name);
  } else {
    const label = t("mooki.collection", { name, n: collection.size, top: faceName(facts, collection.top) });
    cards = h(
      "div",
      { class: "collection-stack" },
      named(piece("card stack", label, h("span", { class: "stack-under", attrs: { "aria-hidden": "true" } }), mookiCard(facts, collection.top)), `collection:${seat}`),
      h("span", { class: "caption" }, t("mooki.cards", { n: collection.size })),
    );
  }
  const about: Child[] = [heading];
  const wonTrophies = (view.scoring?.families ?? []).filter((f) => f.winner === seat);
  if (wonTrophies.length > 0 || view.scoring) about.push(wonRow(input.offer, view, facts, seat, wonTrophies.map((f) => f.family)));
  if (result) about.push(h("p", { class: "stars-total" }, t("mooki.starsTotal", { n: result.stars[seat] ?? 0 })));
  return h(
    "section",
    { class: `mooki-seat ${side}${active ? " active" : ""}`, attrs: { "aria-label": t("mooki.sideOf", { name }), "data-own": side === "mine" && input.viewerSeat !== undefined ? "" : undefined } },
    cards,
    h("div", { class: "seat-about" }, ...about),
  );
}

/** The trophies a seat won, and its Spiders: a trophy is a choice when the Spider takes
 * one; the one it took is drawn as gone (its stars not counted). */
function wonRow(offer: Offer | undefined, view: View, facts: Material | undefined, seat: number, families: number[]): HTMLElement {
  const spiders = view.scoring?.spiders[seat] ?? 0;
  const lost = view.discarded?.seat === seat ? view.discarded.family : undefined;
  return h(
    "div",
    { class: "won" },
    ...families.map((family) => {
      const look = familyLook(facts, family);
      const stars = starsOf(view, family);
      if (family === lost) {
        const label = t("mooki.trophyLost", { family: look.name, stars });
        return named(piece("trophy gone", label, trophy(facts, family, stars, true)), `trophy:${family}`, true);
      }
      const shown = pieceOrChoice(offer, "trophy", enumName(FamilySchema, family), "trophy", t("mooki.trophy", { family: look.name, stars }), [trophy(facts, family, stars)], "trophy");
      return named(shown, `trophy:${family}`, true);
    }),
    h("span", { class: "spiders" }, t("mooki.spiders", { n: spiders })),
  );
}

/** A finished collection: one little pile per family (Legendaries count 2), and the Spiders. */
function byFamily(facts: Material | undefined, faces: Face[], owner: string): HTMLElement {
  const groups = new Map<string, Face[]>();
  for (const face of faces) {
    const key = face.kind === FaceKind.SPIDER ? "spider" : String(face.family);
    groups.set(key, [...(groups.get(key) ?? []), face]);
  }
  const order = [...(facts?.families.map((f) => String(f.family)) ?? []), "spider"];
  const keys = [...groups.keys()].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return h(
    "div",
    { class: "by-family", attrs: { role: "list", "aria-label": t("mooki.collectionOf", { name: owner }) } },
    ...keys.map((key) => {
      const group = groups.get(key) ?? [];
      const worth = group.reduce((sum, face) => sum + (face.kind === FaceKind.LEGENDARY ? 2 : face.kind === FaceKind.MOOKI ? 1 : 0), 0);
      const label = key === "spider" ? t("mooki.spiders", { n: group.length }) : t("mooki.familyCount", { family: familyLook(facts, Number(key)).name, n: worth });
      // The pile shows an ordinary Mooki of the family when it has one: its number says what it is worth.
      const top = group.find((face) => face.kind === FaceKind.MOOKI) ?? group[0];
      return h(
        "div",
        { class: "family-pile", attrs: { role: "listitem" } },
        piece("card small", label, group.length > 1 ? h("span", { class: "stack-under", attrs: { "aria-hidden": "true" } }) : null, top ? mookiCard(facts, top) : cardBack()),
        h("span", { class: "caption", attrs: { "aria-hidden": "true" } }, key === "spider" ? `×${group.length}` : `${worth}`),
      );
    }),
  );
}
