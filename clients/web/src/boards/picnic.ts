// Le pique-nique de Facteur Souris's table: the board drawn from GetGameKind's
// coordinates (every space's row and column, its ground, every stretch of path, the
// house and the picnic site), the friends in the forest and at the picnic, Facteur
// Souris, the Tent and the Cold Dragon; the goal and how far along it is; the night
// track; the tile being played and the tiles kept; and the lid of face-down tiles with
// their backs. The forest is drawn turned a quarter on every screen (the house at the
// bottom, the picnic at the top: one layout for the laptop and the phone), so that on a
// phone held upright every space is big enough to tap.
//
// Choices on the table: a tile of the lid, the tile to use, a friend (the friends' row
// under the forest, or the friend itself on the board), a space to go to (Facteur
// Souris, a friend, the Tent, the dragon), the house or the Tent to shelter in. What
// moves: a tile comes out of the lid and turns over, Facteur Souris and the friends walk
// their paths, an invited friend runs to the picnic, a night falls.

import { choiceIcon } from "./action-icons";
import { BoardSchema, Terrain, TileSourceSchema, TileSource, type BoardLayout, type View } from "@ludotheque/client/gen/ludotheque/picnic/v1/picnic_pb";
import type { BoardMaterial, Material } from "@ludotheque/client/gen/ludotheque/picnic/v1/material_pb";

import { append, h, type Child } from "../dom";
import { t } from "../i18n";
import type { BoardInput, BoardRenderer, EventMoves } from "./board";
import type { Offer } from "./choices";
import { enumName, gameView, material, named, piece, pieceOrChoice, seatName } from "./common";
import { blanket, dragon, friend, house, mouse, pieceColour, tent, tileBack, tileFace } from "./picnic-art";
import { darker, lighter, picture, s, starPoints, type SvgChild } from "./svg";

const CELL = 64;
// A friend's radius, alone on its space or sharing it: two side by side (diagonally, 42
// units apart) just touch, each as large as a friend alone, its initial readable.
const FRIEND = 21;
const MARGIN = 30;
// « Amener Facteur Souris au lieu du pique-nique avec au moins 4 de ses amis » (the rulebook).
const FRIENDS_TO_WIN = 4;

export const picnicBoard: BoardRenderer = {
  render(input: BoardInput): HTMLElement {
    const view = gameView(input.view, "picnic");
    const facts = material(input.facts, "picnic");
    const board = h("div", { class: "board picnic-board", attrs: { "data-kind": "picnic" } });
    if (view?.board === undefined) return board;
    const layout = view.board;
    const drawn = facts?.boards.find((b) => b.board === layout.board);
    const offer = input.offer;
    const step = offer?.options("place").length ? "lid" : offer?.options("friend").length ? "friend" : offer?.options("tile").length ? "tile" : "map";
    board.classList.add(`step-${step}`);
    if (view.result) board.classList.add("over");
    if (input.upright) board.classList.add("upright");
    const chips = friendsRow(input, view, facts);
    append(
      board,
      h("div", { class: "picnic-strip" }, tiles(input, view, facts), goal(view, facts, nightTrack(view, layout, facts))),
      h("section", { class: "forest", attrs: { "aria-label": t("picnic.board", { name: drawn?.name?.text ?? enumName(BoardSchema, layout.board) }) } }, forest(input, view, layout, drawn, facts, chips.pickers)),
      chips.pickers.size > 0 ? chips.element : null,
      // Folded (a tap opens it) while another step is the move, or on a phone while it is
      // not the move; and once the game is over.
      lid(input, view, facts, view.result !== undefined || (step !== "lid" && (Boolean(input.upright) || offer !== undefined))),
    );
    return board;
  },

  moves(event): EventMoves {
    const happened = event.game.case === "picnic" ? event.game.value.kind : undefined;
    switch (happened?.case) {
      case "tileDrawn":
        return {
          motions: [
            { kind: "travel", from: happened.value.placeHidden ? "lid" : `lid:${happened.value.place}`, to: "tile:drawn" },
            { kind: "turn", piece: "tile:drawn" },
          ],
        };
      case "tileKept":
        return { motions: [{ kind: "travel", from: "tile:drawn", to: `kept:${happened.value.seat}` }] };
      case "facteurMoved":
        return { motions: [{ kind: "walk", piece: "facteur", through: [happened.value.start, ...happened.value.route].map((cell) => `cell:${cell}`) }] };
      case "friendMoved":
        return { motions: [{ kind: "walk", piece: `friend:${happened.value.friend}`, through: [happened.value.start, ...happened.value.route].map((cell) => `cell:${cell}`) }] };
      case "friendInvited":
        return { motions: [{ kind: "travel", from: `friend:${happened.value.friend}`, to: `guest:${happened.value.friend}` }] };
      case "rainFell":
        return { motions: [{ kind: "travel", from: "facteur", to: "facteur" }] };
      case "tentBuilt":
        return { motions: [{ kind: "pop", piece: "tent" }] };
      case "nightFell":
        return { motions: [{ kind: "pop", piece: "nights" }] };
      case "dragonMoved":
        return { motions: [{ kind: "travel", from: "dragon", to: "dragon" }] };
      case "gameWon":
        return { motions: [], celebrate: "won" };
      case "gameLost":
        return { motions: [], celebrate: "lost" };
      default:
        return { motions: [] };
    }
  },
};

interface Spot {
  x: number;
  y: number;
}

/** Where each space is drawn: row and column as GetGameKind gives them, turned a quarter
 * when upright (the rows then go left to right, the columns bottom to top). */
function spots(layout: BoardLayout, drawn: BoardMaterial | undefined, upright: boolean): Map<number, Spot> {
  const found = new Map<number, Spot>();
  const width = Math.max(layout.width, 1);
  for (const cell of layout.cells) {
    const position = drawn?.positions.find((p) => p.cell === cell.id);
    const row = position?.row ?? Math.floor(cell.id / width);
    const column = position?.column ?? cell.id % width;
    found.set(cell.id, upright ? { x: row * CELL + CELL / 2, y: (width - 1 - column) * CELL + CELL / 2 } : { x: column * CELL + CELL / 2, y: row * CELL + CELL / 2 });
  }
  return found;
}

/** The board itself, one SVG: grounds, paths, places, pieces, and the spaces to choose. */
function forest(input: BoardInput, view: View, layout: BoardLayout, drawn: BoardMaterial | undefined, facts: Material | undefined, pickers: Map<number, HTMLElement>): SVGSVGElement {
  // The same way on every screen (a parent's laptop and a child's phone see one forest).
  const upright = true;
  const at = spots(layout, drawn, upright);
  const width = (upright ? layout.height : layout.width) * CELL;
  const height = (upright ? layout.width : layout.height) * CELL;
  const ground = (terrain: Terrain): string => facts?.terrains.find((tm) => tm.terrain === terrain)?.rgb || "#AED581";
  const layers: SvgChild[] = [s("rect", { x: -MARGIN, y: -MARGIN, width: width + MARGIN * 2, height: height + MARGIN * 2, rx: 16, fill: "#6d8f3c" })];
  for (const cell of layout.cells) {
    const spot = at.get(cell.id);
    if (spot === undefined) continue;
    const fill = ground(cell.terrain);
    layers.push(named(s("rect", { x: spot.x - CELL / 2, y: spot.y - CELL / 2, width: CELL, height: CELL, fill, stroke: darker(fill, 0.12), "stroke-width": 1 }), `cell:${cell.id}`), decoration(cell.terrain, spot, fill));
  }
  layers.push(...labels(layout, upright));
  const path = facts?.pathRgb || "#D7B98E";
  for (const link of drawn?.paths ?? []) {
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
  layers.push(...pieces(input, view, at, facts, pickers));
  layers.push(...destinations(input.offer, layout, view, at));
  return s("svg", { viewBox: `${-MARGIN} ${-MARGIN} ${width + MARGIN * 2} ${height + MARGIN * 2}`, class: "forest-map", role: "group", "aria-label": t("picnic.mapLabel") }, ...layers);
}

/** The columns' letters and the rows' numbers around the board (24 units: 12 px even
 * on the forest drawn at half size). */
function labels(layout: BoardLayout, upright: boolean): SVGElement[] {
  const text = (x: number, y: number, words: string): SVGElement => s("text", { x, y, "text-anchor": "middle", "font-size": 24, "font-weight": 800, fill: "#fff" }, words);
  const out: SVGElement[] = [];
  for (let column = 0; column < layout.width; column++) {
    const letter = String.fromCharCode(65 + column);
    out.push(upright ? text(-15, (layout.width - 1 - column) * CELL + CELL / 2 + 8, letter) : text(column * CELL + CELL / 2, -7, letter));
  }
  for (let row = 0; row < layout.height; row++) {
    out.push(upright ? text(row * CELL + CELL / 2, -7, String(row + 1)) : text(-15, row * CELL + CELL / 2 + 8, String(row + 1)));
  }
  return out;
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

/** Where each piece stands, several on one space side by side. A friend is drawn with
 * its initial, as large when it shares its space as alone (42 units wide, reaching into
 * the space's neighbours a little). While friends are
 * to pick, a friend on the board is tapped there too (alone: the whole space; sharing
 * it: its own circle, 48 units wide), as its button in the friends' row. */
function pieces(input: BoardInput, view: View, at: Map<number, Spot>, facts: Material | undefined, pickers: Map<number, HTMLElement>): SVGElement[] {
  const out: SVGElement[] = [];
  const standing = view.friends.filter((one) => !one.invited && one.cell !== undefined);
  const crowd = new Map<number, number>([
    [view.board?.house ?? -1, 1],
    [view.board?.picnic ?? -1, 1],
  ]);
  for (const cell of [...standing.map((one) => one.cell as number), view.facteur, ...(view.dragon === undefined ? [] : [view.dragon])]) crowd.set(cell, (crowd.get(cell) ?? 0) + 1);
  const placed = new Map<number, number>();
  const place = (cell: number): { spot: Spot; alone: boolean } | undefined => {
    const spot = at.get(cell);
    if (!spot) return undefined;
    const n = placed.get(cell) ?? (cell === view.board?.house || cell === view.board?.picnic ? 1 : 0);
    placed.set(cell, n + 1);
    const offsets = [
      [0, 0],
      [-15, 15],
      [15, 15],
      [-15, -15],
      [15, -15],
    ];
    const [dx, dy] = (crowd.get(cell) ?? 0) > 1 && n === 0 ? [15, -15] : offsets[n % offsets.length];
    return { spot: { x: spot.x + dx, y: spot.y + dy }, alone: (crowd.get(cell) ?? 0) <= 1 };
  };
  if (view.tent !== undefined) {
    const spot = at.get(view.tent);
    if (spot) out.push(named(labelled(t("picnic.tentAt", { cell: cellName(view, view.tent) }), tent(spot.x + 18, spot.y - 15, 13, pieceColour(facts, "tent", "#FFB300"))), "tent"));
  }
  for (const one of standing) {
    const cell = one.cell as number;
    const where = place(cell);
    if (!where) continue;
    const { spot, alone } = where;
    const rgb = facts?.friends.find((f) => f.friend === one.friend)?.rgb || "#8D6E63";
    const label = t("picnic.friendAt", { name: friendName(view, facts, one.friend), cell: cellName(view, cell) });
    const token = friend(spot.x, spot.y, FRIEND, rgb, one.name);
    // On a phone the forest's spaces are too small to tap a friend there: its button is below.
    const picker = input.upright ? undefined : pickers.get(one.friend);
    const offered = pickers.has(one.friend);
    const chosen = input.offer?.chosen("friend") === String(one.friend);
    const cellSpot = at.get(cell) as Spot;
    const parts: SvgChild[] = [s("title", {}, label)];
    if (picker) {
      // Tapping the friend on the board picks it as its button does (the button is the choice).
      parts.push(
        alone
          ? s("rect", { class: "hit", x: cellSpot.x - CELL / 2, y: cellSpot.y - CELL / 2, width: CELL, height: CELL, fill: "transparent" })
          : s("circle", { class: "hit", cx: spot.x, cy: spot.y, r: 24, fill: "transparent" }),
      );
    }
    if (offered) parts.push(s("circle", { class: "offered-ring", cx: spot.x, cy: spot.y, r: FRIEND + 6 }));
    if (chosen) parts.push(s("circle", { cx: spot.x, cy: spot.y, r: FRIEND + 6, class: "chosen-ring" }));
    parts.push(token);
    const g = named(s("g", { role: "img", "aria-label": label, class: picker ? "friend-alias" : undefined }, ...parts), `friend:${one.friend}`, true);
    if (picker) g.addEventListener("click", () => picker.click());
    out.push(g);
  }
  const facteur = place(view.facteur);
  if (facteur) out.push(named(labelled(t("picnic.facteurAt", { cell: cellName(view, view.facteur) }), mouse(facteur.spot.x, facteur.spot.y, facteur.alone ? 22 : 17, pieceColour(facts, "facteur", "#1565C0"))), "facteur", true));
  if (view.dragon !== undefined) {
    const where = place(view.dragon);
    if (where) out.push(named(labelled(t("picnic.dragonAt", { cell: cellName(view, view.dragon) }), dragon(where.spot.x, where.spot.y, 18, pieceColour(facts, "dragon", "#C62828"))), "dragon", true));
  }
  const picnic = at.get(view.board?.picnic ?? -1);
  const invited = view.friends.filter((f) => f.invited);
  if (picnic) {
    invited.forEach((one, index) => {
      const angle = (2 * Math.PI * index) / Math.max(invited.length, 6) - Math.PI / 2;
      const rgb = facts?.friends.find((f) => f.friend === one.friend)?.rgb || "#8D6E63";
      out.push(named(s("circle", { cx: picnic.x + 27 * Math.cos(angle), cy: picnic.y + 27 * Math.sin(angle), r: 7.5, fill: rgb, stroke: "#fff", "stroke-width": 1.5, "aria-hidden": "true" }), `guest:${one.friend}`));
    });
  }
  return out;
}

/** The spaces offered as the next step: where to go, or where to shelter (each the whole
 * space, its ring drawn inside). */
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
      s("rect", { class: "hit", x: spot.x - CELL / 2, y: spot.y - CELL / 2, width: CELL, height: CELL, fill: "transparent" }),
      s("rect", { class: "ring", x: spot.x - CELL / 2 + 4, y: spot.y - CELL / 2 + 4, width: CELL - 8, height: CELL - 8, rx: 10 }),
      s("circle", { class: "spot", cx: spot.x, cy: spot.y, r: 12 }),
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
        named(pieceOrChoice(input.offer, "tile", enumName(TileSourceSchema, TileSource.DRAWN), "tile big", t("picnic.drawnTile", { name: seatName(input.seats, drawn.seat), tile: name }), [tileFace(facts, drawn.tile)], "tile"), "tile:drawn"),
        h("p", { class: "caption" }, h("strong", {}, t("picnic.drew", { name: seatName(input.seats, drawn.seat), tile: name })), " ", h("span", { class: "effect" }, effect)),
        tileAction(input.offer, "keepTile", t("picnic.keepIt")),
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
        { class: "tile-slot kept", attrs: { "data-own": kept.seat === input.viewerSeat ? "" : undefined } },
        named(pieceOrChoice(input.offer, "tile", enumName(TileSourceSchema, TileSource.KEPT), "tile", label, [tileFace(facts, kept.tile)], "tile"), `kept:${kept.seat}`),
        h("p", { class: "caption" }, h("span", { class: "wide-only" }, label), h("span", { class: "narrow-only" }, t("picnic.keptBy", { name: seatName(input.seats, kept.seat) }))),
        kept.seat === input.viewerSeat ? tileAction(input.offer, "discardTile", t("picnic.discardIt")) : null,
      ),
    );
  }
  if (parts.length === 0) return h("section", { class: "tiles-in-play empty", attrs: { "aria-label": t("picnic.tilesInPlay") } }, named(h("p", { class: "muted hint" }, view.result ? "" : t("picnic.pickATile")), "tile:drawn"));
  return h("section", { class: "tiles-in-play", attrs: { "aria-label": t("picnic.tilesInPlay") } }, ...parts);
}

/** A tile's action beside it ("Keep it for later", "Discard it"), when it is offered:
 * a few words on the button, the server's whole sentence its name. */
function tileAction(offer: Offer | undefined, action: string, words: string): HTMLElement | null {
  const choice = offer?.option("action", action);
  if (offer === undefined || choice === undefined) return null;
  const button = h("button", { class: "move tile-action" }, h("span", { class: "button-picture", attrs: { "aria-hidden": "true" } }, choiceIcon(choice)), h("span", {}, words));
  offer.bind(button, choice, "tile");
  return button;
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
    "div",
    { class: "night-track" },
    h("h3", {}, t("picnic.nights", { n: view.nights, of: spaces })),
    named(piece("nights", t("picnic.nightsLabel", { n: view.nights, of: spaces }), picture(`0 0 ${spaces * 40 + 4} 44`, ...parts)), "nights"),
  );
}

/** The goal in full (Facteur Souris and at least 4 friends at the picnic), how far along
 * it is, and the nights fallen (the time left). */
function goal(view: View, facts: Material | undefined, nights: HTMLElement): HTMLElement {
  const invited = view.friends.filter((f) => f.invited).length;
  const there = view.facteur === view.board?.picnic;
  // What a child counts: a face for each friend at the picnic, an empty place for each one
  // still missing, and Facteur Souris's place (the words say the same, for the ears).
  const faces = view.friends
    .filter((f) => f.invited)
    .map((f) => picture("0 0 40 40", friend(20, 22, 14, facts?.friends.find((one) => one.friend === f.friend)?.rgb || "#8D6E63", "")));
  const missing = Array.from({ length: Math.max(0, FRIENDS_TO_WIN - invited) }, () => h("span", { class: "goal-place" }));
  const seats = h(
    "span",
    { class: "goal-faces", attrs: { "aria-hidden": "true" } },
    ...faces,
    ...missing,
    h("span", { class: "goal-plus" }, "+"),
    there ? picture("0 0 40 40", mouse(20, 22, 15, pieceColour(facts, "facteur", "#1565C0"))) : h("span", { class: "goal-place mouse-place" }),
  );
  const state = view.result ? (view.result.won ? "won" : "lost") : "playing";
  return h(
    "section",
    { class: `goal ${state}`, attrs: { "aria-label": t("picnic.goalTitle") } },
    h("h3", {}, t("picnic.goalTitle")),
    h("p", { class: "goal-text" }, t("picnic.goal", { n: FRIENDS_TO_WIN })),
    h(
      "div",
      { class: "goal-row" },
      seats,
      h(
        "p",
        { class: "goal-progress" },
        h("span", { class: invited >= FRIENDS_TO_WIN ? "done" : "" }, t("picnic.friendsThere", { n: invited, of: FRIENDS_TO_WIN })),
        " · ",
        h("span", { class: there ? "done" : "" }, there ? t("picnic.facteurThere") : t("picnic.facteurNotThere")),
      ),
      nights,
    ),
  );
}

/** The friends by name, where each is; while a friend is to pick, each is its button. */
function friendsRow(input: BoardInput, view: View, facts: Material | undefined): { element: HTMLElement; pickers: Map<number, HTMLElement> } {
  const pickers = new Map<number, HTMLElement>();
  const picking = (input.offer?.options("friend").length ?? 0) > 0;
  const items = view.friends.map((one) => {
    const rgb = facts?.friends.find((f) => f.friend === one.friend)?.rgb || "#8D6E63";
    const name = friendName(view, facts, one.friend);
    const where = one.invited ? t("picnic.invited") : one.cell !== undefined ? cellName(view, one.cell) : "";
    const art = [picture("0 0 40 40", friend(20, 20, 14, rgb, "")), h("span", { class: "friend-name" }, name), h("span", { class: "muted where" }, where)];
    const shown = pieceOrChoice(input.offer, "friend", String(one.friend), `friend-chip${one.invited ? " invited" : ""}`, t("picnic.friendAt", { name, cell: where }), art, "friend");
    if (shown instanceof HTMLButtonElement) pickers.set(one.friend, shown);
    return h("li", {}, shown);
  });
  return { element: h("section", { class: `friends${picking ? " picking" : ""}`, attrs: { "aria-label": t("picnic.friends") } }, h("ul", { class: "friend-list" }, ...items)), pickers };
}

/** The lid: every place with the back of its tile (faces once the game is over); on a
 * phone, folded to its count while it is not the move (a tap opens it). */
function lid(input: BoardInput, view: View, facts: Material | undefined, folded: boolean): HTMLElement {
  const left = view.lid.filter((p) => p.occupied).length;
  const title = view.result ? t("picnic.lidOver", { n: left }) : t("picnic.lid", { n: left });
  const places = h(
    "div",
    { class: "lid-places" },
    ...view.lid.map((place) => {
      if (!place.occupied) return h("span", { class: "lid-place empty", attrs: { "aria-hidden": "true" } });
      const face = place.tile !== undefined && place.tile.kind !== 0;
      const label = face ? tileName(facts, place.tile?.kind ?? 0, place.tile?.value ?? 0) : t("picnic.faceDown", { n: place.place + 1 });
      return named(pieceOrChoice(input.offer, "place", String(place.place), "lid-place", label, [face ? tileFace(facts, place.tile) : tileBack(place.back)], "lid"), `lid:${place.place}`);
    }),
  );
  if (folded) return named(h("details", { class: "lid folded" }, h("summary", {}, title), places), "lid");
  return named(h("section", { class: "lid", attrs: { "aria-label": title } }, h("h3", {}, title), places), "lid");
}
