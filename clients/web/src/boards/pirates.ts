// Mau Mau – Pirates & Compagnie's table: the ships' race to the treasure island, the
// other players' hands (their backs and how many, or their faces with open hands), the
// draw pile and its size, the discard pile's top and the colour a Parrot asked for,
// and the viewer's hand. Choices on the table: a card of the hand to lay, the draw pile
// to draw, then a Parrot's colour among the four stickers. What moves: a card laid goes
// from its hand to the discard pile, cards drawn come from the draw pile, the round's
// winner's ship sails (a round won is celebrated).

import { choiceIcon } from "./action-icons";
import { CardKind, ColourSchema, Direction, type Card, type View } from "@ludotheque/client/gen/ludotheque/pirates/v1/pirates_pb";
import type { Material } from "@ludotheque/client/gen/ludotheque/pirates/v1/material_pb";

import { h, type Child } from "../dom";
import { t } from "../i18n";
import type { BoardInput, BoardRenderer, EventMoves } from "./board";
import type { Offer } from "./choices";
import { gameView, material, named, piece, pieceOrChoice, seatName } from "./common";
import type { Motion } from "./motion";
import { cardName, cardValue, colourLook, island, pirateBack, pirateCard, ship, sticker } from "./pirates-art";
import { picture, s, type SvgChild } from "./svg";

export const piratesBoard: BoardRenderer = {
  render(input: BoardInput): HTMLElement {
    const view = gameView(input.view, "pirates");
    const facts = material(input.facts, "pirates");
    const board = h("div", { class: "board pirates-board", attrs: { "data-kind": "pirates" } });
    if (view === undefined) return board;
    const mine = input.viewerSeat;
    const others = view.hands.filter((hand) => hand.seat !== mine);
    board.append(
      sea(input, view, facts),
      h("section", { class: "other-hands", attrs: { "aria-label": t("pirates.otherHands") } }, ...others.map((hand) => otherHand(input, view, facts, hand.seat))),
      table(input, view, facts),
    );
    if (mine !== undefined) board.append(myHand(input, view, facts, mine));
    // Once a ship reached the island, the piles are no longer the game: the race is.
    if (view.winner !== undefined) board.classList.add("over");
    return board;
  },

  moves(event, input): EventMoves {
    const happened = event.game.case === "pirates" ? event.game.value.kind : undefined;
    const mine = (seat: number): boolean => input.viewerSeat === seat;
    switch (happened?.case) {
      case "cardPlayed": {
        const { seat, card } = happened.value;
        const from = mine(seat) && card ? `card:${cardValue(card)}` : `hand:${seat}`;
        return { motions: [{ kind: "travel", from, to: "discard" }] };
      }
      case "cardsDrawn": {
        const { seat, cards } = happened.value;
        const motions: Motion[] = mine(seat) ? cards.map((card) => ({ kind: "travel", from: "draw-pile", to: `card:${cardValue(card)}` })) : [];
        return { motions: motions.length > 0 ? motions : [{ kind: "travel", from: "draw-pile", to: `hand:${seat}` }] };
      }
      case "roundWon":
        return { motions: [{ kind: "travel", from: `ship:${happened.value.seat}`, to: `ship:${happened.value.seat}` }], celebrate: "round" };
      case "roundDealt":
        return { motions: [{ kind: "travel", from: "draw-pile", to: "card:*" }, ...happened.value.hands.map((hand) => ({ kind: "travel" as const, from: "draw-pile", to: `hand:${hand.seat}` }))] };
      case "drawPileRebuilt":
        return { motions: [{ kind: "pop", piece: "draw-pile" }] };
      default:
        return { motions: [] };
    }
  },
};

/** The sea lanes: one per ship, from the harbour to the treasure island. */
function sea(input: BoardInput, view: View, facts: Material | undefined): HTMLElement {
  const distance = Math.max(view.islandDistance, 1);
  const start = 26;
  const end = 376;
  const step = (end - start) / distance;
  const lanes = view.ships.map((at, seat) => {
    const rgb = facts?.ships.find((one) => one.seat === seat)?.rgb || "#607D8B";
    const parts: SvgChild[] = [s("path", { d: `M${start} 34 H${end + 20}`, stroke: "#9fcbee", "stroke-width": 2, "stroke-dasharray": "6 6" })];
    for (let space = 1; space < distance; space++) parts.push(s("circle", { cx: start + space * step, cy: 34, r: 4, fill: "#7fb3e0" }));
    parts.push(named(ship(Math.min(start + Math.min(at, distance) * step, end), 30, rgb), `ship:${seat}`, true));
    return h(
      "div",
      { class: `lane${view.activeSeat === seat ? " active" : ""}${view.winner === seat ? " winner" : ""}` },
      h("span", { class: "lane-name" }, seatName(input.seats, seat)),
      h("span", { class: "lane-sea" }, picture("0 0 400 44", ...parts)),
    );
  });
  const where = view.ships.map((at, seat) => t("pirates.shipAt", { name: seatName(input.seats, seat), n: at, of: distance })).join(" ");
  return h(
    "section",
    { class: "sea", attrs: { "aria-label": t("pirates.race") } },
    h("div", { class: "sea-lanes", attrs: { role: "img", "aria-label": where } }, h("div", { class: "lanes" }, ...lanes), h("span", { class: "isle" }, picture("0 0 70 60", island(35, 36)))),
    h("p", { class: "caption" }, t("pirates.round", { n: view.round, of: distance })),
  );
}

function otherHand(input: BoardInput, view: View, facts: Material | undefined, seat: number): HTMLElement {
  const hand = view.hands.find((h) => h.seat === seat);
  const size = hand?.size ?? 0;
  const name = seatName(input.seats, seat);
  const open = (hand?.cards.length ?? 0) > 0;
  const shown = open ? (hand?.cards ?? []) : Array.from({ length: Math.min(size, 8) }, () => undefined);
  const label = open ? t("pirates.openHand", { name, cards: (hand?.cards ?? []).map((c) => cardName(facts, c)).join(", ") }) : t("pirates.handSize", { name, n: size });
  const active = view.activeSeat === seat && view.winner === undefined;
  return h(
    "div",
    { class: `other-hand${active ? " active" : ""}${view.winner === seat ? " winner" : ""}` },
    h(
      "h3",
      {},
      h("span", { class: "seat-title" }, name),
      h("span", { class: "hand-count", attrs: { "aria-hidden": "true" } }, t("pirates.cards", { n: size })),
      active ? h("span", { class: "turn-badge" }, t("pirates.turn")) : null,
      view.winner === seat ? h("span", { class: "win-badge" }, t("pirates.winner")) : null,
    ),
    named(
      h("div", { class: `fan${open ? " open" : ""}`, attrs: { role: "img", "aria-label": label } }, ...shown.map((card) => h("span", { class: "fan-card" }, card ? pirateCard(facts, card) : pirateBack()))),
      `hand:${seat}`,
    ),
  );
}

function table(input: BoardInput, view: View, facts: Material | undefined): HTMLElement {
  const drawLabel = t("pirates.drawPile", { n: view.drawPileSize });
  const drawChoice = input.offer?.option("action", "draw");
  const drawArt: Child[] = view.drawPileSize > 0 ? [h("span", { class: "stack-under", attrs: { "aria-hidden": "true" } }), pirateBack()] : [h("span", { class: "empty-slot" }, drawChoice ? choiceIcon(drawChoice) : null)]; // an empty pile still shows what a tap does
  const drawPile = named(pieceOrChoice(input.offer, "action", "draw", "card stack", drawChoice?.description?.text ?? drawLabel, drawArt, "table"), "draw-pile");
  const top = view.discardTop;
  const discard = top
    ? named(piece("card", t("pirates.discardTop", { card: cardName(facts, top), n: view.discardSize }), h("span", { class: "stack-under", attrs: { "aria-hidden": "true" } }), pirateCard(facts, top)), "discard")
    : named(h("span", { class: "empty-slot card" }), "discard");
  const colours = input.offer?.options("colour") ?? [];
  return h(
    "section",
    { class: "pirates-table", attrs: { "aria-label": t("pirates.table") } },
    h("div", { class: "pile" }, drawPile, h("span", { class: "caption" }, drawChoice ? t("pirates.drawHere") : t("pirates.drawCaption", { n: view.drawPileSize }))),
    h("div", { class: "pile" }, discard, h("span", { class: "caption" }, t("pirates.discard"))),
    colours.length > 0 ? colourPicker(input.offer, facts, colours.map((c) => c.value)) : notes(view, facts),
  );
}

/** What the table says beside the piles: the colour asked for, the draw owed, the direction. */
function notes(view: View, facts: Material | undefined): HTMLElement {
  const announced = view.announced !== 0 ? colourLook(facts, view.announced) : undefined;
  const arrow = view.direction === Direction.COUNTERCLOCKWISE ? "↺" : "↻";
  return h(
    "div",
    { class: "table-notes" },
    announced
      ? h(
          "p",
          { class: "announced" },
          h("span", { class: "sticker-badge", attrs: { "aria-hidden": "true" } }, picture("0 0 40 40", sticker(announced.sticker, 20, 20, 14, announced.rgb))),
          t("pirates.asks", { colour: announced.name }),
        )
      : null,
    view.drawPenalty > 0 ? h("p", { class: "penalty" }, t("pirates.penalty", { n: view.drawPenalty })) : null,
    h("p", { class: "direction" }, h("span", { class: "arrow", attrs: { "aria-hidden": "true" } }, arrow), view.direction === Direction.COUNTERCLOCKWISE ? t("pirates.counterclockwise") : t("pirates.clockwise")),
  );
}

/** A Parrot was picked: the colour it asks for, one sticker each. */
function colourPicker(offer: Offer | undefined, facts: Material | undefined, values: string[]): HTMLElement {
  return h(
    "div",
    { class: "colour-picker", attrs: { role: "group", "aria-label": t("pirates.whichColour") } },
    h(
      "div",
      { class: "colours" },
      ...values.map((value) => {
        const colour = ColourSchema.values.find((v) => v.name === value)?.number ?? 0;
        const look = colourLook(facts, colour);
        return pieceOrChoice(offer, "colour", value, "colour-choice", look.name, [picture("0 0 40 40", sticker(look.sticker, 20, 20, 15, look.rgb)), h("span", {}, look.name)], "colour");
      }),
    ),
  );
}

function myHand(input: BoardInput, view: View, facts: Material | undefined, seat: number): HTMLElement {
  const hand = view.hands.find((h) => h.seat === seat);
  const cards = hand?.cards ?? [];
  const fresh = [...view.drawn];
  const chosen = input.offer?.chosen("card");
  const active = view.activeSeat === seat && view.winner === undefined;
  const seen = new Set<string>();
  return h(
    "section",
    { class: `my-hand${active ? " active" : ""}`, attrs: { "aria-label": t("pirates.yourHand", { n: cards.length }), "data-own": "" } },
    h("h3", {}, t("pirates.yourHand", { n: cards.length }), view.winner === seat ? h("span", { class: "win-badge" }, t("pirates.winner")) : null),
    h(
      "div",
      { class: `hand${cards.length > 9 ? " crowded" : ""}` }, // smaller cards: a big hand stays on one screen
      ...cards.map((card) => {
        const value = cardValue(card);
        const element = pieceOrChoice(input.offer, "card", value, "card", cardName(facts, card), [pirateCard(facts, card)], "hand");
        // Each card of the deck is one of a kind but the Parrots: the first one keeps the name.
        if (!seen.has(value)) named(element, `card:${value}`, true);
        seen.add(value);
        const drawnNow = fresh.findIndex((c) => sameCard(c, card));
        if (drawnNow >= 0) {
          fresh.splice(drawnNow, 1);
          element.classList.add("fresh");
        }
        if (chosen === value) element.classList.add("chosen");
        return element;
      }),
    ),
  );
}

function sameCard(a: Card, b: Card): boolean {
  return a.kind === b.kind && (a.kind === CardKind.PARROT || (a.colour === b.colour && a.value === b.value));
}
