// Mooki Island's table: the two draw piles with the face showing on top of each, the
// card being played (both faces for the one who drew it), each player's collection
// (its top card while playing; every card by family once the game is over), the five
// trophies with their stars, and who won them. Choices on the table: a pile to draw
// from, the face of the drawn card to keep, the trophy to give back to the Spider.

import { FaceKind, FamilySchema, Phase, SideSchema, Side, type Face, type View } from "@ludotheque/client/gen/ludotheque/mooki/v1/mooki_pb";
import type { Material } from "@ludotheque/client/gen/ludotheque/mooki/v1/material_pb";

import { h, type Child } from "../dom";
import { t } from "../i18n";
import type { BoardInput, BoardRenderer } from "./board";
import type { Offer } from "./choices";
import { enumName, gameView, material, piece, pieceOrChoice, seatName } from "./common";
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
    board.append(table(input, view, facts), trophies(view, facts), seatArea(input, view, facts, me, "mine"));
    return board;
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
      pieceOrChoice(input.offer, "pile", String(index), "card stack", label, art, "pile"),
      h("span", { class: "caption" }, t("mooki.pileCaption", { name, n: pile.size })),
    );
  });
  const middle = h("div", { class: "mooki-drawn" }, drawnCard(input, view, facts));
  return h("section", { class: "mooki-table", attrs: { "aria-label": t("mooki.table") } }, piles[0] ?? null, middle, piles[1] ?? null);
}

function drawnCard(input: BoardInput, view: View, facts: Material | undefined): HTMLElement {
  const drawn = view.drawn;
  if (drawn === undefined) return h("p", { class: "muted hint" }, view.phase === Phase.DRAW ? t("mooki.toDraw") : "");
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
      { class: "faces" },
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

/** The five trophies not won by anyone yet (all of them until the scoring). */
function trophies(view: View, facts: Material | undefined): HTMLElement {
  const won = new Map((view.scoring?.families ?? []).filter((f) => f.winner !== undefined).map((f) => [f.family, f.winner as number]));
  const left = view.stars.filter((trophyStars) => !won.has(trophyStars.family) && view.discarded?.family !== trophyStars.family);
  const items = left.map((trophyStars) => {
    const name = familyLook(facts, trophyStars.family).name;
    const tied = view.scoring !== undefined;
    return piece("trophy", t(tied ? "mooki.trophyTied" : "mooki.trophy", { family: name, stars: trophyStars.stars }), trophy(facts, trophyStars.family, trophyStars.stars));
  });
  const gone = view.discarded;
  return h(
    "section",
    { class: "mooki-trophies", attrs: { "aria-label": t("mooki.trophies") } },
    h("h3", {}, view.scoring ? t("mooki.trophiesTied") : t("mooki.trophiesToWin")),
    items.length > 0 ? h("div", { class: "trophy-row" }, ...items) : h("p", { class: "muted" }, t("mooki.allWon")),
    gone
      ? h(
          "p",
          { class: "spider-took" },
          piece("trophy lost", t("mooki.trophyGone", { family: familyLook(facts, gone.family).name }), trophy(facts, gone.family, starsOf(view, gone.family))),
          t("mooki.trophyGone", { family: familyLook(facts, gone.family).name }),
        )
      : null,
  );
}

function starsOf(view: View, family: number): number {
  return view.stars.find((s) => s.family === family)?.stars ?? 0;
}

function seatArea(input: BoardInput, view: View, facts: Material | undefined, seat: number, side: "mine" | "opponent"): HTMLElement {
  const name = seatName(input.seats, seat);
  const collection = view.collections.find((c) => c.seat === seat);
  const active = view.activeSeat === seat;
  const result = view.result;
  const heading = h(
    "h3",
    {},
    name,
    input.viewerSeat === seat ? ` ${t("mooki.you")}` : "",
    active ? h("span", { class: "turn-badge" }, t("mooki.turn")) : null,
    result && result.winner === seat ? h("span", { class: "win-badge" }, t("mooki.winner")) : null,
  );
  const parts: Child[] = [heading];
  if (collection === undefined || collection.size === 0) {
    parts.push(h("p", { class: "muted" }, t("mooki.noCards")));
  } else if (collection.faces.length > 0) {
    parts.push(byFamily(facts, collection.faces, name));
  } else {
    const label = t("mooki.collection", { name, n: collection.size, top: faceName(facts, collection.top) });
    parts.push(
      h("div", { class: "collection-stack" }, piece("card stack", label, h("span", { class: "stack-under", attrs: { "aria-hidden": "true" } }), mookiCard(facts, collection.top)), h("span", { class: "caption" }, t("mooki.cards", { n: collection.size }))),
    );
  }
  const wonTrophies = (view.scoring?.families ?? []).filter((f) => f.winner === seat);
  if (wonTrophies.length > 0 || view.scoring) {
    parts.push(wonRow(input.offer, view, facts, seat, wonTrophies.map((f) => f.family)));
  }
  if (result) {
    parts.push(h("p", { class: "stars-total" }, t("mooki.starsTotal", { n: result.stars[seat] ?? 0 })));
  }
  return h("section", { class: `mooki-seat ${side}${active ? " active" : ""}`, attrs: { "aria-label": t("mooki.sideOf", { name }) } }, ...parts);
}

/** The trophies a seat won, and its Spiders: a trophy is a choice when the Spider takes one. */
function wonRow(offer: Offer | undefined, view: View, facts: Material | undefined, seat: number, families: number[]): HTMLElement {
  const spiders = view.scoring?.spiders[seat] ?? 0;
  return h(
    "div",
    { class: "won" },
    ...families.map((family) => {
      const look = familyLook(facts, family);
      return pieceOrChoice(offer, "trophy", enumName(FamilySchema, family), "trophy", t("mooki.trophy", { family: look.name, stars: starsOf(view, family) }), [trophy(facts, family, starsOf(view, family))], "trophy");
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
      const top = group.find((face) => face.kind === FaceKind.LEGENDARY) ?? group[0];
      return h(
        "div",
        { class: "family-pile", attrs: { role: "listitem" } },
        piece("card small", label, group.length > 1 ? h("span", { class: "stack-under", attrs: { "aria-hidden": "true" } }) : null, top ? mookiCard(facts, top) : cardBack()),
        h("span", { class: "caption", attrs: { "aria-hidden": "true" } }, key === "spider" ? `×${group.length}` : `${worth}`),
      );
    }),
  );
}
