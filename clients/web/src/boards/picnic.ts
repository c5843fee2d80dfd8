// Le pique-nique de Facteur Souris's table: the board drawn from GetGameKind's
// coordinates (every space's row and column, its ground, every stretch of path, the
// house and the picnic site), the friends in the forest and at the picnic, Facteur
// Souris, the Tent and the Cold Dragon; the night track; the tile being played and the
// tiles kept; and the lid of face-down tiles with their backs. Choices on the table: a
// tile of the lid, the tile to use, a friend, a space to go to (Facteur Souris, a
// friend, the Tent, the dragon), the house or the Tent to shelter in.

import { BoardSchema, Terrain, TileSourceSchema, TileSource, type BoardLayout, type View } from "@ludotheque/client/gen/ludotheque/picnic/v1/picnic_pb";
import type { BoardMaterial, Material } from "@ludotheque/client/gen/ludotheque/picnic/v1/material_pb";

import { h, type Child } from "../dom";
import { t } from "../i18n";
import type { BoardInput, BoardRenderer } from "./board";
import type { Offer } from "./choices";
import { enumName, gameView, material, piece, pieceOrChoice, seatName } from "./common";
import { blanket, dragon, friend, house, mouse, pieceColour, tent, tileBack, tileFace } from "./picnic-art";
import { darker, lighter, picture, s, starPoints, type SvgChild } from "./svg";

const CELL = 64;
const MARGIN = 22;

export const picnicBoard: BoardRenderer = {
  render(input: BoardInput): HTMLElement {
    const view = gameView(input.view, "picnic");
    const facts = material(input.facts, "picnic");
    const board = h("div", { class: "board picnic-board", attrs: { "data-kind": "picnic" } });
    if (view?.board === undefined) return board;
    const layout = view.board;
    const drawn = facts?.boards.find((b) => b.board === layout.board);
    board.append(
      h("section", { class: "forest", attrs: { "aria-label": t("picnic.board", { name: drawn?.name?.text ?? enumName(BoardSchema, layout.board) }) } }, forest(input, view, layout, drawn, facts)),
      h("div", { class: "picnic-side" }, tiles(input, view, facts), nightTrack(view, layout, facts), atThePicnic(view, facts)),
      lid(input, view, facts),
    );
    return board;
  },
};

interface Spot {
  x: number;
  y: number;
}

function spots(layout: BoardLayout, drawn: BoardMaterial | undefined): Map<number, Spot> {
  const found = new Map<number, Spot>();
  for (const cell of layout.cells) {
    const position = drawn?.positions.find((p) => p.cell === cell.id);
    const row = position?.row ?? Math.floor(cell.id / Math.max(layout.width, 1));
    const column = position?.column ?? cell.id % Math.max(layout.width, 1);
    found.set(cell.id, { x: column * CELL + CELL / 2, y: row * CELL + CELL / 2 });
  }
  return found;
}

/** The board itself, one SVG: grounds, paths, places, pieces, and the spaces to choose. */
function forest(input: BoardInput, view: View, layout: BoardLayout, drawn: BoardMaterial | undefined, facts: Material | undefined): SVGSVGElement {
  const at = spots(layout, drawn);
  const width = layout.width * CELL;
  const height = layout.height * CELL;
  const ground = (terrain: Terrain): string => facts?.terrains.find((tm) => tm.terrain === terrain)?.rgb || "#AED581";
  const layers: SvgChild[] = [s("rect", { x: -MARGIN, y: -MARGIN, width: width + MARGIN * 2, height: height + MARGIN * 2, rx: 16, fill: "#6d8f3c" })];
  for (const cell of layout.cells) {
    const spot = at.get(cell.id);
    if (spot === undefined) continue;
    const fill = ground(cell.terrain);
    layers.push(s("rect", { x: spot.x - CELL / 2, y: spot.y - CELL / 2, width: CELL, height: CELL, fill, stroke: darker(fill, 0.12), "stroke-width": 1 }), decoration(cell.terrain, spot, fill));
  }
  for (let column = 0; column < layout.width; column++) {
    layers.push(s("text", { x: column * CELL + CELL / 2, y: -6, "text-anchor": "middle", "font-size": 14, "font-weight": 700, fill: "#fff" }, String.fromCharCode(65 + column)));
  }
  for (let row = 0; row < layout.height; row++) {
    layers.push(s("text", { x: -11, y: row * CELL + CELL / 2 + 5, "text-anchor": "middle", "font-size": 14, "font-weight": 700, fill: "#fff" }, String(row + 1)));
  }
  const path = facts?.pathRgb || "#D7B98E";
  const links = drawn?.paths ?? [];
  for (const link of links) {
    const a = at.get(link.start);
    const b = at.get(link.end);
    if (a && b) layers.push(s("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: path, "stroke-width": 20, "stroke-linecap": "round" }));
  }
  for (const cell of layout.cells) {
    const spot = at.get(cell.id);
    if (cell.path && spot) layers.push(s("circle", { cx: spot.x, cy: spot.y, r: 10, fill: path }));
  }
  const home = at.get(layout.house);
  const picnic = at.get(layout.picnic);
  if (home) layers.push(labelled(t("picnic.house"), house(home.x, home.y, 24)));
  if (picnic) layers.push(labelled(t("picnic.site"), blanket(picnic.x, picnic.y, 26)));
  layers.push(...pieces(input, view, at, facts));
  layers.push(...destinations(input.offer, layout, view, at));
  const svg = s("svg", { viewBox: `${-MARGIN} ${-MARGIN} ${width + MARGIN * 2} ${height + MARGIN * 2}`, class: "forest-map", role: "group", "aria-label": t("picnic.mapLabel") }, ...layers);
  return svg;
}

function labelled(label: string, art: SVGElement): SVGElement {
  return s("g", { role: "img", "aria-label": label }, s("title", {}, label), art);
}

function decoration(terrain: Terrain, { x, y }: Spot, fill: string): SVGElement | null {
  if (terrain === Terrain.ROCK) {
    return s("g", {}, s("ellipse", { cx: x - 8, cy: y + 6, rx: 16, ry: 11, fill: darker(fill, 0.25) }), s("ellipse", { cx: x + 10, cy: y - 4, rx: 11, ry: 9, fill: darker(fill, 0.12) }), s("ellipse", { cx: x - 12, cy: y + 2, rx: 5, ry: 3, fill: lighter(fill, 0.4) }));
  }
  if (terrain === Terrain.POND) {
    return s("g", { fill: "none", stroke: lighter(fill, 0.55), "stroke-width": 2 }, s("path", { d: `M${x - 18} ${y - 8} q6 -5 12 0 t12 0` }), s("path", { d: `M${x - 6} ${y + 10} q6 -5 12 0 t12 0` }));
  }
  return s("g", { stroke: darker(fill, 0.25), "stroke-width": 1.5, "stroke-linecap": "round" }, s("path", { d: `M${x - 20} ${y + 22} l2 -6 M${x - 16} ${y + 22} l-1 -7 M${x + 18} ${y - 18} l2 -6 M${x + 22} ${y - 18} l-1 -6` }));
}

/** Where each piece stands, several on one space side by side. */
function pieces(input: BoardInput, view: View, at: Map<number, Spot>, facts: Material | undefined): SVGElement[] {
  const out: SVGElement[] = [];
  // The house and the picnic site are drawn in the middle of their space: pieces there stand aside.
  const crowd = new Map<number, number>([
    [view.board?.house ?? -1, 1],
    [view.board?.picnic ?? -1, 1],
  ]);
  const place = (cell: number): Spot | undefined => {
    const spot = at.get(cell);
    if (!spot) return undefined;
    const n = crowd.get(cell) ?? 0;
    crowd.set(cell, n + 1);
    const offsets = [
      [0, 0],
      [-13, 13],
      [13, 13],
      [-13, -13],
    ];
    const [dx, dy] = offsets[n % offsets.length];
    return { x: spot.x + dx, y: spot.y + dy };
  };
  if (view.tent !== undefined) {
    const spot = at.get(view.tent);
    if (spot) out.push(labelled(t("picnic.tentAt", { cell: cellName(view, view.tent) }), tent(spot.x + 17, spot.y - 16, 12, pieceColour(facts, "tent", "#FFB300"))));
  }
  for (const one of view.friends) {
    if (one.invited || one.cell === undefined) continue;
    const spot = place(one.cell);
    if (!spot) continue;
    const rgb = facts?.friends.find((f) => f.friend === one.friend)?.rgb || "#8D6E63";
    const label = t("picnic.friendAt", { name: friendName(view, facts, one.friend), cell: cellName(view, one.cell) });
    const token = friend(spot.x, spot.y, 17, rgb, one.name);
    const choice = input.offer?.option("friend", String(one.friend));
    if (choice) {
      const g = s("g", { class: "svg-choice" }, s("circle", { class: "ring", cx: spot.x, cy: spot.y, r: 25 }), token);
      input.offer?.bind(g, choice, "friend");
      out.push(g);
    } else {
      const chosen = input.offer?.chosen("friend") === String(one.friend);
      out.push(s("g", { role: "img", "aria-label": label, class: chosen ? "chosen" : undefined }, s("title", {}, label), chosen ? s("circle", { cx: spot.x, cy: spot.y, r: 25, class: "chosen-ring" }) : null, token));
    }
  }
  const facteur = place(view.facteur);
  if (facteur) out.push(labelled(t("picnic.facteurAt", { cell: cellName(view, view.facteur) }), mouse(facteur.x, facteur.y, 20, pieceColour(facts, "facteur", "#1565C0"))));
  if (view.dragon !== undefined) {
    const spot = place(view.dragon);
    if (spot) out.push(labelled(t("picnic.dragonAt", { cell: cellName(view, view.dragon) }), dragon(spot.x, spot.y, 18, pieceColour(facts, "dragon", "#C62828"))));
  }
  const picnic = at.get(view.board?.picnic ?? -1);
  const invited = view.friends.filter((f) => f.invited);
  if (picnic) {
    invited.forEach((one, index) => {
      const angle = (2 * Math.PI * index) / Math.max(invited.length, 6) - Math.PI / 2;
      const rgb = facts?.friends.find((f) => f.friend === one.friend)?.rgb || "#8D6E63";
      out.push(s("circle", { cx: picnic.x + 27 * Math.cos(angle), cy: picnic.y + 27 * Math.sin(angle), r: 6.5, fill: rgb, stroke: "#fff", "stroke-width": 1.5, "aria-hidden": "true" }));
    });
  }
  return out;
}

/** The spaces offered as the next step: where to go, or where to shelter. */
function destinations(offer: Offer | undefined, layout: BoardLayout, view: View, at: Map<number, Spot>): SVGElement[] {
  if (offer === undefined) return [];
  const marks: SVGElement[] = [];
  const mark = (cell: number, subject: string, value: string): void => {
    const choice = offer.option(subject, value);
    const spot = at.get(cell);
    if (!choice || !spot) return;
    const g = s(
      "g",
      { class: "svg-choice destination" },
      s("rect", { class: "ring", x: spot.x - CELL / 2 + 3, y: spot.y - CELL / 2 + 3, width: CELL - 6, height: CELL - 6, rx: 10 }),
      s("circle", { class: "spot", cx: spot.x, cy: spot.y, r: 13 }),
    );
    offer.bind(g, choice, "cell");
    marks.push(g);
  };
  for (const choice of offer.options("cell")) mark(Number(choice.value), "cell", choice.value);
  mark(layout.house, "shelter", "house");
  if (view.tent !== undefined) mark(view.tent, "shelter", "tent");
  return marks;
}

function cellName(view: View, cell: number): string {
  return view.board?.cells.find((c) => c.id === cell)?.name ?? String(cell);
}

function friendName(view: View, facts: Material | undefined, index: number): string {
  return facts?.friends.find((f) => f.friend === index)?.label?.text || view.friends.find((f) => f.friend === index)?.name || String(index);
}

function tileName(facts: Material | undefined, kind: number, value: number): string {
  const name = facts?.tileKinds.find((k) => k.kind === kind)?.name?.text ?? "?";
  return value > 0 ? `${name} ${value}` : name;
}

/** The tile being played and the tiles kept for later: a choice when one is to be used. */
function tiles(input: BoardInput, view: View, facts: Material | undefined): HTMLElement {
  const parts: Child[] = [];
  const drawn = view.drawn;
  if (drawn?.tile) {
    const name = tileName(facts, drawn.tile.kind, drawn.tile.value);
    const effect = facts?.tileKinds.find((k) => k.kind === drawn.tile?.kind)?.effect?.text ?? "";
    parts.push(
      h(
        "div",
        { class: "tile-slot drawn" },
        pieceOrChoice(input.offer, "tile", enumName(TileSourceSchema, TileSource.DRAWN), "tile big", t("picnic.drawnTile", { name: seatName(input.seats, drawn.seat), tile: name }), [tileFace(facts, drawn.tile)], "tile"),
        h("p", { class: "caption" }, h("strong", {}, t("picnic.drew", { name: seatName(input.seats, drawn.seat), tile: name })), " ", effect),
      ),
    );
  }
  for (const kept of view.kept) {
    if (!kept.tile) continue;
    const name = tileName(facts, kept.tile.kind, kept.tile.value);
    const label = t("picnic.keptTile", { name: seatName(input.seats, kept.seat), tile: name });
    parts.push(
      h(
        "div",
        { class: "tile-slot kept" },
        pieceOrChoice(input.offer, "tile", enumName(TileSourceSchema, TileSource.KEPT), "tile", label, [tileFace(facts, kept.tile)], "tile"),
        h("p", { class: "caption" }, label),
      ),
    );
  }
  if (parts.length === 0 && view.result) return h("section", { class: "tiles-in-play", attrs: { hidden: true } });
  if (parts.length === 0) parts.push(h("p", { class: "muted hint" }, t("picnic.pickATile")));
  return h("section", { class: "tiles-in-play", attrs: { "aria-label": t("picnic.tilesInPlay") } }, ...parts);
}

function nightTrack(view: View, layout: BoardLayout, facts: Material | undefined): HTMLElement {
  const spaces = layout.nightSpaces || facts?.nightSpaces || 6;
  const parts: SvgChild[] = [];
  for (let i = 0; i < spaces; i++) {
    const x = 22 + i * 40;
    const dark = i < view.nights;
    const last = i === spaces - 1;
    parts.push(s("circle", { cx: x, cy: 22, r: 16, fill: dark ? "#1a237e" : "#e3f2fd", stroke: last ? "#b03a48" : "#5c6bc0", "stroke-width": last ? 3 : 2 }));
    if (dark) parts.push(s("path", { d: `M${x + 3} 12 A10 10 0 1 0 ${x + 3} 32 A8 8 0 1 1 ${x + 3} 12 Z`, fill: "#fff59d" }));
    else if (last) parts.push(s("polygon", { points: starPoints(x, 22, 7, 3), fill: "#b03a48" }));
  }
  return h(
    "section",
    { class: "night-track" },
    h("h3", {}, t("picnic.nights")),
    piece("nights", t("picnic.nightsLabel", { n: view.nights, of: spaces }), picture(`0 0 ${spaces * 40 + 4} 44`, ...parts)),
  );
}

function atThePicnic(view: View, facts: Material | undefined): HTMLElement {
  const invited = view.friends.filter((f) => f.invited);
  return h(
    "section",
    { class: "friends-legend" },
    h("h3", {}, t("picnic.atThePicnic", { n: invited.length })),
    h(
      "ul",
      { class: "friend-list" },
      ...view.friends.map((one) => {
        const rgb = facts?.friends.find((f) => f.friend === one.friend)?.rgb || "#8D6E63";
        const name = friendName(view, facts, one.friend);
        const where = one.invited ? t("picnic.invited") : one.cell !== undefined ? cellName(view, one.cell) : "";
        return h("li", { class: one.invited ? "invited" : "" }, picture("0 0 40 40", friend(20, 22, 13, rgb, one.name)), h("span", {}, name), h("span", { class: "muted" }, where));
      }),
    ),
  );
}

/** The lid: every place with the back of its tile (faces once the game is over). */
function lid(input: BoardInput, view: View, facts: Material | undefined): HTMLElement {
  const left = view.lid.filter((p) => p.occupied).length;
  return h(
    "section",
    { class: "lid", attrs: { "aria-label": t("picnic.lid", { n: left }) } },
    h("h3", {}, t("picnic.lid", { n: left })),
    h(
      "div",
      { class: "lid-places" },
      ...view.lid.map((place) => {
        if (!place.occupied) return h("span", { class: "lid-place empty", attrs: { "aria-hidden": "true" } });
        const face = place.tile !== undefined && place.tile.kind !== 0;
        const label = face ? tileName(facts, place.tile?.kind ?? 0, place.tile?.value ?? 0) : t("picnic.faceDown", { n: place.place + 1 });
        return pieceOrChoice(input.offer, "place", String(place.place), "lid-place", label, [face ? tileFace(facts, place.tile) : tileBack(place.back)], "lid");
      }),
    ),
  );
}
