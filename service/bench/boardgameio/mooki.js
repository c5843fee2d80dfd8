// Mooki Island's turn as a boardgame.io 0.50 game, for the benchmark's side-by-side
// comparison (service/bench/versus.py). Not a second implementation of the rules: it
// makes the same kind of move on a state of about the same size (two piles of 18
// double-sided cards, two collections, five trophies), so what differs between the
// two sides is the framework's cost per move, not the game's.
//
// A turn: `draw` (a pile) then `place` (the side to keep up). A Spider goes onto the
// opponent's collection, a Mooki onto one's own. When a pile is empty after a place,
// the trophies are handed out; the seat with the most Spiders discards one of its
// trophies (`discard`, a move of its own when it holds two or more), and the game ends.
//
// The piles' faces are hidden (playerView shows each pile's size and its top card's
// shown face), so the moves run on the server only (`client: false`), as a
// boardgame.io game with secret state must: the client sees a move's outcome when the
// server's update reaches it, which is what the load measures.

const { INVALID_MOVE } = require('boardgame.io/core');

const FAMILIES = ['sun', 'moon', 'fossil', 'seashell', 'leaf'];
const STARS = { sun: 5, moon: 4, fossil: 3, seashell: 2, leaf: 1 };

// 72 faces (60 Mookies, 5 Legendary, 7 Spiders) on 36 cards, as in the rulebook.
function faces() {
  const all = [];
  for (const family of FAMILIES) {
    for (let i = 0; i < 12; i++) all.push({ kind: 'mooki', family });
    all.push({ kind: 'legendary', family });
  }
  for (let i = 0; i < 7; i++) all.push({ kind: 'spider', family: null });
  return all;
}

function setup({ random }) {
  const shuffled = random.Shuffle(faces());
  const cards = [];
  for (let i = 0; i < shuffled.length; i += 2) {
    cards.push({ id: i / 2, shown: shuffled[i], hidden: shuffled[i + 1] });
  }
  return {
    piles: [cards.slice(0, 18), cards.slice(18)],
    collections: [[], []],
    drawn: null,
    trophies: [[], []],
    penalised: null,
    stars: null,
  };
}

function tally(collections) {
  const counts = collections.map(() => Object.fromEntries(FAMILIES.map((f) => [f, 0])));
  const spiders = collections.map(() => 0);
  collections.forEach((collection, seat) => {
    for (const placed of collection) {
      if (placed.face.kind === 'spider') spiders[seat] += 1;
      else counts[seat][placed.face.family] += placed.face.kind === 'legendary' ? 2 : 1;
    }
  });
  return { counts, spiders };
}

function stars(trophies) {
  return trophies.map((held) => held.reduce((sum, family) => sum + STARS[family], 0));
}

function finish(G, events) {
  G.stars = stars(G.trophies);
  const winner = G.stars[0] >= G.stars[1] ? '0' : '1';
  events.endGame({ winner, stars: G.stars });
}

// The trophies go out; the seat with more Spiders loses one (its choice if it has two or more).
function score(G, events) {
  const { counts, spiders } = tally(G.collections);
  for (const family of FAMILIES) {
    if (counts[0][family] > counts[1][family]) G.trophies[0].push(family);
    else if (counts[1][family] > counts[0][family]) G.trophies[1].push(family);
  }
  const penalised = spiders[0] > spiders[1] ? 0 : spiders[1] > spiders[0] ? 1 : null;
  if (penalised !== null && G.trophies[penalised].length === 1) G.trophies[penalised] = [];
  if (penalised !== null && G.trophies[penalised].length > 1) {
    G.penalised = penalised;
    events.endTurn({ next: String(penalised) });
    return;
  }
  finish(G, events);
}

const draw = {
  move: ({ G, playerID }, pile) => {
    if (G.drawn !== null || G.penalised !== null || !G.piles[pile] || G.piles[pile].length === 0) {
      return INVALID_MOVE;
    }
    const card = G.piles[pile].shift();
    G.drawn = { seat: Number(playerID), pile, card };
  },
  client: false,
};

const place = {
  move: ({ G, playerID, events }, side) => {
    if (G.drawn === null || (side !== 'shown' && side !== 'hidden')) return INVALID_MOVE;
    const seat = Number(playerID);
    const { card } = G.drawn;
    const [face, other] = side === 'shown' ? [card.shown, card.hidden] : [card.hidden, card.shown];
    const target = face.kind === 'spider' ? 1 - seat : seat;
    G.collections[target].push({ id: card.id, face, other, placedBy: seat, side });
    G.drawn = null;
    if (G.piles.some((pile) => pile.length === 0)) score(G, events);
    else events.endTurn();
  },
  client: false,
};

const discard = {
  move: ({ G, playerID, events }, family) => {
    const seat = Number(playerID);
    if (G.penalised !== seat || !G.trophies[seat].includes(family)) return INVALID_MOVE;
    G.trophies[seat] = G.trophies[seat].filter((held) => held !== family);
    G.penalised = null;
    finish(G, events);
  },
  client: false,
};

// What a seat sees, as in engines/mooki/visibility.py: each pile's size and its top
// card's shown face; the drawn card's shown face (its hidden one too for its holder);
// each collection's size and top card (every face once the game is over).
function playerView({ G, ctx, playerID }) {
  const piles = G.piles.map((pile) => ({ size: pile.length, top: pile.length ? pile[0].shown : null }));
  const over = ctx.gameover !== undefined || G.penalised !== null;
  const collections = G.collections.map((collection) =>
    over
      ? collection.map((placed) => placed.face)
      : { size: collection.length, top: collection.length ? collection[collection.length - 1].face : null },
  );
  let drawn = null;
  if (G.drawn !== null) {
    const { seat, pile, card } = G.drawn;
    drawn = { seat, pile, shown: card.shown, hidden: String(seat) === playerID ? card.hidden : null };
  }
  return { ...G, piles, collections, drawn };
}

// The legal moves of a seat, from what it sees (the load's random player).
function legalMoves(G, playerID) {
  if (G.penalised !== null) {
    return G.penalised === Number(playerID) ? G.trophies[G.penalised].map((f) => ['discard', f]) : [];
  }
  if (G.drawn !== null) return [['place', 'shown'], ['place', 'hidden']];
  return G.piles.flatMap((pile, index) => (pile.size > 0 ? [['draw', index]] : []));
}

const Mooki = {
  name: 'mooki',
  minPlayers: 2,
  maxPlayers: 2,
  setup,
  moves: { draw, place, discard },
  playerView,
};

module.exports = { Mooki, legalMoves };
