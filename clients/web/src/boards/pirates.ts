// Mau Mau – Pirates & Compagnie's table: the ships' race to the treasure island, the
// other players' hands (their backs and how many, or their faces with open hands), the
// draw pile and its size, the discard pile's top and the colour a Parrot asked for,
// and the viewer's hand. Choices on the table: a card of the hand to lay, the draw pile
// to draw, then a Parrot's colour among the four stickers.

import { CardKind, ColourSchema, Direction, type Card, type View } from "@ludotheque/client/gen/ludotheque/pirates/v1/pirates_pb";
import type { Material } from "@ludotheque/client/gen/ludotheque/pirates/v1/material_pb";

import { h, type Child } from "../dom";
import { t } from "../i18n";
import type { BoardInput, BoardRenderer } from "./board";
import type { Offer } from "./choices";
import { gameView, material, piece, pieceOrChoice, seatName } from "./common";
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
    const colours = input.offer?.options("colour") ?? [];
    if (colours.length > 0) board.append(colourPicker(input.offer, facts, colours.map((c) => c.value)));
    if (mine !== undefined) board.append(myHand(input, view, facts, mine));
    return board;
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
    parts.push(ship(Math.min(start + Math.min(at, distance) * step, end), 30, rgb));
    return h(
      "div",
      { class: `lane${view.activeSeat === seat ? " active" : ""}` },
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
  const active = view.activeSeat === seat;
  return h(
    "div",
    { class: `other-hand${active ? " active" : ""}${view.winner === seat ? " winner" : ""}` },
    h("h3", {}, name, active ? h("span", { class: "turn-badge" }, t("pirates.turn")) : null, view.winner === seat ? h("span", { class: "win-badge" }, t("pirates.winner")) : null),
    h(
      "div",
      { class: `fan${open ? " open" : ""}`, attrs: { role: "img", "aria-label": label } },
      ...shown.map((card) => h("span", { class: "fan-card" }, card ? pirateCard(facts, card) : pirateBack())),
    ),
    h("span", { class: "caption" }, t("pirates.cards", { n: size })),
  );
}

function table(input: BoardInput, view: View, facts: Material | undefined): HTMLElement {
  const drawLabel = t("pirates.drawPile", { n: view.drawPileSize });
  const drawChoice = input.offer?.option("action", "draw");
  const drawArt: Child[] = view.drawPileSize > 0 ? [h("span", { class: "stack-under", attrs: { "aria-hidden": "true" } }), pirateBack()] : [h("span", { class: "empty-slot" })];
  const drawPile = pieceOrChoice(input.offer, "action", "draw", "card stack", drawChoice?.description?.text ?? drawLabel, drawArt, "table");
  const top = view.discardTop;
  const announced = view.announced !== 0 ? colourLook(facts, view.announced) : undefined;
  const arrow = view.direction === Direction.COUNTERCLOCKWISE ? "↺" : "↻";
  return h(
    "section",
    { class: "pirates-table", attrs: { "aria-label": t("pirates.table") } },
    h("div", { class: "pile" }, drawPile, h("span", { class: "caption" }, drawChoice ? t("pirates.drawHere") : drawLabel)),
    h(
      "div",
      { class: "pile" },
      top ? piece("card", t("pirates.discardTop", { card: cardName(facts, top), n: view.discardSize }), h("span", { class: "stack-under", attrs: { "aria-hidden": "true" } }), pirateCard(facts, top)) : h("span", { class: "empty-slot" }),
      h("span", { class: "caption" }, t("pirates.discard")),
    ),
    h(
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
    ),
  );
}

/** A Parrot was picked: the colour it asks for, one sticker each. */
function colourPicker(offer: Offer | undefined, facts: Material | undefined, values: string[]): HTMLElement {
  return h(
    "section",
    { class: "colour-picker", attrs: { "aria-label": t("pirates.whichColour") } },
    h("h3", {}, t("pirates.whichColour")),
    h(
      "div",
      { class: "colours" },
      ...values.map((value) => {
        const colour = ColourSchema.values.find((v) => v.name === value)?.number ?? 0;
        const look = colourLook(facts, colour);
        const button = pieceOrChoice(offer, "colour", value, "colour-choice", look.name, [picture("0 0 40 40", sticker(look.sticker, 20, 20, 15, look.rgb)), h("span", {}, look.name)], "colour");
        return button;
      }),
    ),
  );
}

function myHand(input: BoardInput, view: View, facts: Material | undefined, seat: number): HTMLElement {
  const hand = view.hands.find((h) => h.seat === seat);
  const cards = hand?.cards ?? [];
  const fresh = [...view.drawn];
  const chosen = input.offer?.chosen("card");
  const active = view.activeSeat === seat;
  return h(
    "section",
    { class: `my-hand${active ? " active" : ""}`, attrs: { "aria-label": t("pirates.yourHand", { n: cards.length }) } },
    h("h3", {}, t("pirates.yourHand", { n: cards.length }), view.winner === seat ? h("span", { class: "win-badge" }, t("pirates.winner")) : null),
    h(
      "div",
      { class: "hand" },
      ...cards.map((card) => {
        const value = cardValue(card);
        const element = pieceOrChoice(input.offer, "card", value, "card", cardName(facts, card), [pirateCard(facts, card)], "hand");
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

