// Heraldis for the web app: its rules and the network's input, exactly as
// the Rust engine has them (engine/src/games/heraldis); the Grand Maître
// that plays it (the bar, the advice, the levels) is game-neutral, in
// grandmaitre.js beside this file, with the search in search.js.
// ES modules with no dependencies: they run as they are in Node 20 and in
// browsers; the network runs on onnxruntime (onnxruntime-web in the app,
// onnxruntime-node in the tests), passed in by the caller.
//
// Cells: a1 = 0, b1 = 1, …, e1 = 4, a2 = 5, …, e5 = 24, that is
// 5 × (rank − 1) + file. Actions: 0..24 the cells (a placement, or a capture
// where the cell holds an opponent piece), 25 `pass`. Sets of cells are
// 25-bit integers, bit `c` for cell `c`.

import { GrandMaitre as Engine, shown } from './grandmaitre.js';

/** Board width and height. */
export const SIZE = 5;
/** Number of cells. */
export const CELLS = SIZE * SIZE;
/** All 25 cells. */
export const FULL = (1 << CELLS) - 1;
/** The action that passes (legal only with an empty reserve). */
export const PASS = CELLS;
/** Number of actions: 25 cells and `pass`. */
export const ACTION_COUNT = CELLS + 1;
/** Pieces of each colour, on the board and in reserve together. */
export const PIECES_PER_PLAYER = 13;
/** The default game length limit in plies (an engine rule). */
export const DEFAULT_PLY_LIMIT = 150;
/** Version of the network input encoding this module writes. */
export const ENCODING_VERSION = 2;
/** Number of input planes. */
export const PLANE_COUNT = 30;
/** The five symbols by index: Loup, Aigle, Ours, Cerf, Sanglier. */
export const SYMBOLS = Object.freeze(['L', 'A', 'O', 'C', 'S']);
/** Light moves at even plies, Dark at odd ones. */
export const LIGHT = 0;
export const DARK = 1;
/** The default layout of the rules (rank 5 first). */
export const DEFAULT_LAYOUT =
  'A S OS CS AC / LS LA O C OA / L LC OC LC L / OA C O LA LS / AC CS OS S A';

/** Planes that depend on cells (the rest are constant over the board). */
const CELL_PLANES = 15;
/** Order in which an Alliance's letters are written: L O A C S. */
const WRITING_RANK = [0, 2, 1, 3, 4];

// ---------------------------------------------------------------------------
// Errors and small helpers

/** The error for bad input: `invalid <what> '<input>': <reason>`, one line. */
function invalid(what, input, reason) {
  return new Error(`invalid ${what} '${shown(input)}': ${reason}`);
}

/** Bit of a cell. */
export function bit(cell) {
  return 1 << cell;
}

/** Number of cells in a set. */
export function popcount(bits) {
  let x = bits >>> 0;
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** The cells of a set, in increasing order. */
export function cellsOf(bits) {
  const cells = [];
  for (let cell = 0; cell < 32; cell += 1) {
    if ((bits >>> cell) & 1) {
      cells.push(cell);
    }
  }
  return cells;
}

/** Cell index of a file (0 = a) and a rank (0 = rank 1). */
export function cellAt(file, rank) {
  return rank * SIZE + file;
}

/** File (0 = a) of a cell. */
export function fileOf(cell) {
  return cell % SIZE;
}

/** Rank (0 = rank 1) of a cell. */
export function rankOf(cell) {
  return Math.floor(cell / SIZE);
}

/** Name of a cell: `a1` … `e5`. */
export function cellName(cell) {
  return `${'abcde'[fileOf(cell)]}${rankOf(cell) + 1}`;
}

/** The cell of a name `a1` … `e5`, or -1. */
export function parseCell(text) {
  if (typeof text !== 'string' || !/^[a-e][1-5]$/.test(text)) {
    return -1;
  }
  return cellAt(text.charCodeAt(0) - 97, text.charCodeAt(1) - 49);
}

// ---------------------------------------------------------------------------
// Lines of four (board.rs)

/** Mask of the cells with min_file ≤ file ≤ max_file and rank ≤ max_rank. */
function region(minFile, maxFile, maxRank) {
  let mask = 0;
  for (let cell = 0; cell < CELLS; cell += 1) {
    const file = fileOf(cell);
    if (file >= minFile && file <= maxFile && rankOf(cell) <= maxRank) {
      mask |= bit(cell);
    }
  }
  return mask;
}

const HORIZONTAL_STARTS = region(0, 1, 4);
const VERTICAL_STARTS = region(0, 4, 1);
const DIAGONAL_STARTS = region(0, 1, 1);
const ANTI_DIAGONAL_STARTS = region(3, 4, 1);

/** Whether `pieces` holds four cells in a row (28 lines on the board). */
export function hasFourInRow(pieces) {
  const p = pieces & FULL;
  const horizontal = p & (p >>> 1) & (p >>> 2) & (p >>> 3) & HORIZONTAL_STARTS;
  const vertical = p & (p >>> 5) & (p >>> 10) & (p >>> 15) & VERTICAL_STARTS;
  const diagonal = p & (p >>> 6) & (p >>> 12) & (p >>> 18) & DIAGONAL_STARTS;
  const antiDiagonal = p & (p >>> 4) & (p >>> 8) & (p >>> 12) & ANTI_DIAGONAL_STARTS;
  return (horizontal | vertical | diagonal | antiDiagonal) !== 0;
}

function completingInDirection(pieces, step, starts) {
  const p0 = pieces & starts;
  const p1 = (pieces >>> step) & starts;
  const p2 = (pieces >>> (2 * step)) & starts;
  const p3 = (pieces >>> (3 * step)) & starts;
  return (
    (p1 & p2 & p3) |
    ((p0 & p2 & p3) << step) |
    ((p0 & p1 & p3) << (2 * step)) |
    ((p0 & p1 & p2) << (3 * step))
  );
}

/**
 * The cells that would give `pieces` four in a row if one more piece stood
 * there (whether or not they are free).
 */
export function completingCells(pieces) {
  const p = pieces & FULL;
  return (
    (completingInDirection(p, 1, HORIZONTAL_STARTS) |
      completingInDirection(p, 5, VERTICAL_STARTS) |
      completingInDirection(p, 6, DIAGONAL_STARTS) |
      completingInDirection(p, 4, ANTI_DIAGONAL_STARTS)) &
    FULL
  );
}

// ---------------------------------------------------------------------------
// Layouts (layout.rs)

/**
 * A valid layout: 10 Founding Houses (each symbol on two) and 15 Alliances.
 * `sites[cell]` is an array of symbol indices: one for a House, two (in
 * writing order L O A C S) for an Alliance.
 */
export class Layout {
  constructor(sites) {
    this.sites = Object.freeze(sites.map((site) => Object.freeze([...site])));
    this.houses = 0;
    this.housesOf = [0, 0, 0, 0, 0];
    this.cellsWithSymbol = [0, 0, 0, 0, 0];
    this.sites.forEach((site, cell) => {
      if (site.length === 1) {
        this.houses |= bit(cell);
        this.housesOf[site[0]] |= bit(cell);
      }
      for (const symbol of site) {
        this.cellsWithSymbol[symbol] |= bit(cell);
      }
    });
    this.alliances = FULL & ~this.houses;
    Object.freeze(this.housesOf);
    Object.freeze(this.cellsWithSymbol);
    Object.freeze(this);
  }

  /** The default layout of the rules. */
  static default() {
    return Layout.parse(DEFAULT_LAYOUT);
  }

  /**
   * Reads a layout: 25 tokens, rank 5 first, ranks separated by `/`; a
   * one-letter token is a House, a two-letter token an Alliance.
   */
  static parse(text) {
    if (typeof text !== 'string') {
      throw invalid('layout', text, 'expected text');
    }
    const error = (reason) => invalid('layout', text, reason);
    const ranks = text.split('/');
    if (ranks.length !== SIZE) {
      throw error(`expected 5 ranks separated by '/', found ${ranks.length}`);
    }
    const sites = new Array(CELLS);
    ranks.forEach((rankText, row) => {
      const rank = SIZE - 1 - row;
      const tokens = rankText.split(/\s+/).filter((token) => token !== '');
      if (tokens.length !== SIZE) {
        throw error(`rank ${rank + 1} has ${tokens.length} cells, expected 5`);
      }
      tokens.forEach((token, file) => {
        const symbols = [...token].map((letter) => SYMBOLS.indexOf(letter));
        const known = symbols.every((symbol) => symbol >= 0);
        let site;
        if (known && symbols.length === 1) {
          site = symbols;
        } else if (known && symbols.length === 2 && symbols[0] !== symbols[1]) {
          site = symbols.sort((a, b) => WRITING_RANK[a] - WRITING_RANK[b]);
        } else if (known && symbols.length === 2) {
          throw error(`Alliance ${token} needs two distinct symbols`);
        } else {
          throw error(`bad cell '${token}': expected one or two of the letters L A O C S`);
        }
        sites[cellAt(file, rank)] = site;
      });
    });
    const houses = sites.filter((site) => site.length === 1);
    if (houses.length !== 10) {
      throw error(`expected exactly 10 Houses, found ${houses.length}`);
    }
    for (let symbol = 0; symbol < SYMBOLS.length; symbol += 1) {
      const count = houses.filter((site) => site[0] === symbol).length;
      if (count !== 2) {
        throw error(`symbol ${SYMBOLS[symbol]} is on ${count} Houses, expected 2`);
      }
    }
    return new Layout(sites);
  }

  /** Whether a cell is a Founding House. */
  isHouse(cell) {
    return ((this.houses >>> cell) & 1) === 1;
  }

  /** The letters of a cell: `L` for a House, `OC` for an Alliance. */
  token(cell) {
    return this.sites[cell].map((symbol) => SYMBOLS[symbol]).join('');
  }

  /** The layout in its notation, ranks separated by ` / `. */
  toString() {
    const ranks = [];
    for (let rank = SIZE - 1; rank >= 0; rank -= 1) {
      const tokens = [];
      for (let file = 0; file < SIZE; file += 1) {
        tokens.push(this.token(cellAt(file, rank)));
      }
      ranks.push(tokens.join(' '));
    }
    return ranks.join(' / ');
  }
}

// ---------------------------------------------------------------------------
// Positions (position.rs)

/**
 * A position: the pieces of each colour (`pieces[0]` Light's, `pieces[1]`
 * Dark's), the plies played and the Truce cell (-1 for none). The side to
 * move follows from the ply, each reserve from the pieces on the board.
 */
export class Position {
  constructor(light = 0, dark = 0, ply = 0, truce = -1) {
    this.pieces = [light & FULL, dark & FULL];
    this.ply = ply;
    this.truce = truce;
  }

  /** The empty board, Light to move. */
  static start() {
    return new Position();
  }

  /** LIGHT (0) at even plies, DARK (1) at odd ones. */
  get side() {
    return this.ply % 2;
  }

  /** `l` or `d`. */
  get sideLetter() {
    return this.side === LIGHT ? 'l' : 'd';
  }

  /** Occupied cells. */
  get occupied() {
    return this.pieces[0] | this.pieces[1];
  }

  /** Pieces `player` still has in reserve. */
  reserve(player) {
    return PIECES_PER_PLAYER - popcount(this.pieces[player]);
  }

  /** `L`, `D` or `null` for the piece on a cell. */
  pieceAt(cell) {
    if ((this.pieces[LIGHT] >>> cell) & 1) {
      return 'L';
    }
    if ((this.pieces[DARK] >>> cell) & 1) {
      return 'D';
    }
    return null;
  }

  /**
   * Reads the fields of `<ranks> <side> <truce> <ply>`; the checks that
   * depend on the rules are the game's (`Heraldis.parsePosition`). Throws
   * with a one-line message.
   */
  static parse(text) {
    if (typeof text !== 'string') {
      throw invalid('position', text, 'expected text');
    }
    const fail = (reason) => invalid('position', text, reason);
    const fields = text.split(/\s+/).filter((field) => field !== '');
    if (fields.length !== 4) {
      throw fail(
        `expected 4 fields '<ranks> <side> <truce> <ply>', found ${fields.length}`,
      );
    }
    const [ranksText, sideText, truceText, plyText] = fields;
    const pieces = parseRanks(ranksText, fail);
    if (!/^\+?[0-9]+$/.test(plyText) || Number(plyText) > 65535) {
      throw fail(`bad ply '${plyText}': expected a number of plies`);
    }
    const ply = Number(plyText);
    let side;
    if (sideText === 'l') {
      side = LIGHT;
    } else if (sideText === 'd') {
      side = DARK;
    } else {
      throw fail(`bad side '${sideText}': expected 'l' or 'd'`);
    }
    let truce = -1;
    if (truceText !== '-') {
      truce = parseCell(truceText);
      if (truce < 0) {
        throw fail(`bad truce '${truceText}': expected a cell or '-'`);
      }
    }
    const position = new Position(pieces[0], pieces[1], ply, truce);
    if (position.side !== side) {
      throw fail(
        `side '${sideText}' cannot move at ply ${ply}: Light moves at even plies, Dark at odd ones`,
      );
    }
    return position;
  }

  /** The position in its notation. */
  toString() {
    const ranks = [];
    for (let rank = SIZE - 1; rank >= 0; rank -= 1) {
      let text = '';
      let empty = 0;
      for (let file = 0; file < SIZE; file += 1) {
        const piece = this.pieceAt(cellAt(file, rank));
        if (piece === null) {
          empty += 1;
        } else {
          if (empty > 0) {
            text += String(empty);
            empty = 0;
          }
          text += piece;
        }
      }
      if (empty > 0) {
        text += String(empty);
      }
      ranks.push(text);
    }
    const truce = this.truce >= 0 ? cellName(this.truce) : '-';
    return `${ranks.join('/')} ${this.sideLetter} ${truce} ${this.ply}`;
  }
}

function parseRanks(text, fail) {
  const rows = text.split('/');
  if (rows.length !== SIZE) {
    throw fail(`expected 5 ranks separated by '/', found ${rows.length}`);
  }
  const pieces = [0, 0];
  rows.forEach((row, index) => {
    const rank = SIZE - 1 - index;
    let file = 0;
    for (const symbol of row) {
      let run;
      if (symbol === 'L' || symbol === 'D') {
        run = 1;
      } else if (symbol >= '1' && symbol <= '5') {
        run = Number(symbol);
      } else {
        throw fail(
          `bad character '${symbol}' in rank ${rank + 1}: expected L, D or a digit 1-5`,
        );
      }
      if (file + run > SIZE) {
        throw fail(`rank ${rank + 1} has more than 5 cells`);
      }
      if (symbol === 'L') {
        pieces[LIGHT] |= bit(cellAt(file, rank));
      } else if (symbol === 'D') {
        pieces[DARK] |= bit(cellAt(file, rank));
      }
      file += run;
    }
    if (file !== SIZE) {
      throw fail(`rank ${rank + 1} has ${file} cells, expected 5`);
    }
  });
  return pieces;
}

// ---------------------------------------------------------------------------
// The rules (mod.rs)

/** The players' names, as results and the bar key them. */
const PLAYERS = Object.freeze(['light', 'dark']);

/** Results, as the bar shows them. */
const LIGHT_WINS = Object.freeze({ light: 1, draw: 0, dark: 0 });
const DRAWN = Object.freeze({ light: 0, draw: 1, dark: 0 });
const DARK_WINS = Object.freeze({ light: 0, draw: 0, dark: 1 });

/** The rules of Heraldis on one layout and ply limit. */
export class Heraldis {
  /**
   * @param {Layout|string} [layout] the layout (its notation, or a Layout)
   * @param {number} [plyLimit] the game is drawn after this many plies
   */
  constructor(layout = DEFAULT_LAYOUT, plyLimit = DEFAULT_PLY_LIMIT) {
    this.layout = layout instanceof Layout ? layout : Layout.parse(layout);
    if (!Number.isInteger(plyLimit) || plyLimit < 1 || plyLimit > 65535) {
      throw new Error(`invalid ply limit '${shown(plyLimit)}': expected a whole number from 1 to 65535`);
    }
    this.plyLimit = plyLimit;
    // For each set of owned House symbols (bit s for symbol s), the
    // Alliance cells whose two symbols are both owned.
    this.capturable = new Array(32).fill(0);
    for (let owned = 0; owned < 32; owned += 1) {
      for (let cell = 0; cell < CELLS; cell += 1) {
        const site = this.layout.sites[cell];
        if (site.length === 2 && (owned >> site[0]) & 1 && (owned >> site[1]) & 1) {
          this.capturable[owned] |= bit(cell);
        }
      }
    }
  }

  /** The players' names, Light then Dark: the keys of a result and the bar. */
  get players() {
    return PLAYERS;
  }

  /** The network's input: planes, height, width. */
  get inputShape() {
    return [PLANE_COUNT, SIZE, SIZE];
  }

  /** The network's actions: the cells and pass. */
  get actionCount() {
    return ACTION_COUNT;
  }

  /** The cells a symmetry's cell map moves. */
  get cellCount() {
    return CELLS;
  }

  /** Whether `value` is a position (else it is read as notation). */
  isPosition(value) {
    return value instanceof Position;
  }

  /** Whether two positions are the same (pieces, ply and truce). */
  samePosition(a, b) {
    return samePosition(a, b);
  }

  /** `position` with every cell moved by `map` (pieces and truce cell). */
  mapPosition(position, map) {
    const moved = (pieces) => {
      let bits = 0;
      for (let rest = pieces; rest !== 0; rest &= rest - 1) {
        bits |= bit(map[31 - Math.clz32(rest & -rest)]);
      }
      return bits;
    };
    const truce = position.truce >= 0 ? map[position.truce] : -1;
    return new Position(moved(position.pieces[0]), moved(position.pieces[1]), position.ply, truce);
  }

  /**
   * The cell maps under which the rules are the same (the identity
   * first): the board's eight symmetries that keep the layout.
   */
  ruleSymmetries() {
    if (this.symmetries === undefined) {
      const last = SIZE - 1;
      const images = [
        (f, r) => [f, r],
        (f, r) => [r, last - f],
        (f, r) => [last - f, last - r],
        (f, r) => [last - r, f],
        (f, r) => [last - f, r],
        (f, r) => [f, last - r],
        (f, r) => [r, f],
        (f, r) => [last - r, last - f],
      ];
      const site = (cell) => [...this.layout.sites[cell]].sort().join(',');
      this.symmetries = images
        .map((image) =>
          Array.from({ length: CELLS }, (_, cell) => {
            const [file, rank] = image(fileOf(cell), rankOf(cell));
            return cellAt(file, rank);
          }),
        )
        .filter((map) => map.every((to, from) => site(to) === site(from)));
    }
    return this.symmetries;
  }

  /** Two numbers that tell positions apart (the solver's table keys). */
  positionKey(position) {
    return [position.pieces[0] * 33554432 + position.pieces[1], position.ply * 32 + position.truce + 1];
  }

  /** `action` with its cell moved by `map` (pass stays pass). */
  mapAction(action, map) {
    return action === PASS ? PASS : map[action];
  }

  /** The set of House symbols on which `pieces` stand (bit s = symbol s). */
  ownedSymbols(pieces) {
    let owned = 0;
    for (let symbol = 0; symbol < SYMBOLS.length; symbol += 1) {
      if ((pieces & this.layout.housesOf[symbol]) !== 0) {
        owned |= 1 << symbol;
      }
    }
    return owned;
  }

  /**
   * Opponent pieces that `player` may capture, ignoring whose turn it is but
   * honouring the Truce when `player` is to move.
   */
  capturableBy(position, player) {
    const mine = position.pieces[player];
    const theirs = position.pieces[1 - player];
    const truce = player === position.side && position.truce >= 0 ? bit(position.truce) & FULL : 0;
    return this.capturable[this.ownedSymbols(mine)] & theirs & ~truce;
  }

  /** Plies played since the start. */
  ply(position) {
    return position.ply;
  }

  /**
   * The finished game's result as `{ light, draw, dark }` (exact), or null
   * while it goes on.
   */
  result(position) {
    const lastMover = 1 - position.side;
    if (hasFourInRow(position.pieces[lastMover])) {
      return lastMover === LIGHT ? LIGHT_WINS : DARK_WINS;
    }
    if (position.occupied === FULL || position.ply >= this.plyLimit) {
      return DRAWN;
    }
    return null;
  }

  /** Whether the game is over. */
  isOver(position) {
    return this.result(position) !== null;
  }

  /** The legal actions as a bit set: bit a for action a (bit 25 is pass). */
  legalMask(position) {
    if (this.result(position) !== null) {
      return 0;
    }
    const side = position.side;
    if (position.reserve(side) === 0) {
      return bit(PASS);
    }
    const empty = FULL & ~position.occupied;
    if (position.ply === 0) {
      // The First Oath: Light's first piece goes on an Alliance.
      return empty & this.layout.alliances;
    }
    return empty | this.capturableBy(position, side);
  }

  /** The legal actions, in increasing order. */
  legalActions(position) {
    const mask = this.legalMask(position);
    const actions = [];
    for (let action = 0; action < ACTION_COUNT; action += 1) {
      if ((mask >>> action) & 1) {
        actions.push(action);
      }
    }
    return actions;
  }

  /** The legal moves in notation, in action order. */
  legalMoves(position) {
    return this.legalActions(position).map((action) => this.formatAction(position, action));
  }

  /** Whether `action` is legal. */
  isLegal(position, action) {
    return (
      Number.isInteger(action) &&
      action >= 0 &&
      action < ACTION_COUNT &&
      ((this.legalMask(position) >>> action) & 1) === 1
    );
  }

  /** An action in notation: `c3`, `xc3` (a capture) or `pass`. */
  formatAction(position, action) {
    if (action === PASS) {
      return 'pass';
    }
    const opponent = position.pieces[1 - position.side];
    const name = cellName(action);
    return (opponent >>> action) & 1 ? `x${name}` : name;
  }

  /**
   * Reads a legal move: `c3` (a placement, or the capture if c3 holds an
   * opponent piece), `xc3` or `pass`. Throws with a one-line message.
   */
  parseAction(position, text) {
    const fail = (reason) => invalid('move', text, reason);
    let action;
    if (text === 'pass') {
      action = PASS;
    } else {
      if (typeof text !== 'string') {
        throw fail('expected a cell a1-e5, x and a cell, or pass');
      }
      const capture = text.startsWith('x');
      const cell = parseCell(capture ? text.slice(1) : text);
      if (cell < 0) {
        throw fail('expected a cell a1-e5, x and a cell, or pass');
      }
      if (capture && ((position.pieces[1 - position.side] >>> cell) & 1) === 0) {
        throw fail('a capture needs an opponent piece on that cell');
      }
      action = cell;
    }
    if (!this.isLegal(position, action)) {
      throw fail('illegal move');
    }
    return action;
  }

  /** The position after a legal action (a new Position). */
  apply(position, action) {
    if (!this.isLegal(position, action)) {
      throw new Error(`illegal action ${shown(action)} in position '${position}'`);
    }
    return this.applyLegal(position, action);
  }

  /** `apply` for an action known to be legal (the search's), unchecked. */
  applyLegal(position, action) {
    const side = position.side;
    const pieces = [...position.pieces];
    let truce = -1;
    if (action !== PASS) {
      const cell = bit(action);
      const other = 1 - side;
      if (pieces[other] & cell) {
        pieces[other] ^= cell;
        truce = action;
      }
      pieces[side] |= cell;
    }
    return new Position(pieces[0], pieces[1], position.ply + 1, truce);
  }

  /** The position after a move in notation. */
  play(position, moveText) {
    return this.apply(position, this.parseAction(position, moveText));
  }

  /**
   * Reads a position and checks that it can arise on this layout and ply
   * limit. Throws with a one-line message.
   */
  parsePosition(text) {
    const position = Position.parse(text);
    const reason = this.faultOf(position);
    if (reason !== null) {
      throw invalid('position', text, reason);
    }
    return position;
  }

  /** Why `position` cannot arise, or null. */
  faultOf(position) {
    const ply = position.ply;
    if (ply > this.plyLimit) {
      return `ply ${ply} is beyond the limit of ${this.plyLimit} plies`;
    }
    for (const player of [LIGHT, DARK]) {
      const count = popcount(position.pieces[player]);
      const turns = Math.floor((ply + 1 - player) / 2);
      const name = player === LIGHT ? 'Light' : 'Dark';
      if (count > PIECES_PER_PLAYER) {
        return `${name} has ${count} pieces, at most 13 exist`;
      }
      if (count > turns) {
        return `${name} has ${count} pieces after only ${turns} of its turns`;
      }
    }
    const side = position.side;
    if (hasFourInRow(position.pieces[side])) {
      return 'the side to move already has four in a row';
    }
    if (position.truce >= 0) {
      const name = cellName(position.truce);
      if (((position.pieces[1 - side] >>> position.truce) & 1) === 0) {
        return `truce cell ${name} does not hold a piece of the side that just captured`;
      }
      if (((this.layout.alliances >>> position.truce) & 1) === 0) {
        return `truce cell ${name} is a House, where nothing is ever captured`;
      }
    }
    return null;
  }

  /**
   * The network input of `position` (encoding version 2): 30 planes of 5×5,
   * plane-major, cell (file, rank) at offset rank × 5 + file (rank 1 first),
   * from the side to move's point of view. Writes into `out` at `offset`
   * when given (for batches), else into a new Float32Array.
   */
  encode(position, out = new Float32Array(PLANE_COUNT * CELLS), offset = 0) {
    const side = position.side;
    const opponent = 1 - side;
    const mine = position.pieces[side];
    const theirs = position.pieces[opponent];
    const layout = this.layout;

    const legal = this.legalMask(position) & FULL;
    const mayCapture = legal & theirs;
    const opponentHasReserve = position.reserve(opponent) > 0;
    const couldBeCaptured = opponentHasReserve ? this.capturableBy(position, opponent) : 0;
    const completesMine = completingCells(mine);
    const completesTheirs = completingCells(theirs);
    const free = FULL & ~(mine | theirs);
    const opponentMayPlay = opponentHasReserve ? free | couldBeCaptured : 0;

    const bitboards = new Array(CELL_PLANES).fill(0);
    bitboards[0] = mine;
    bitboards[1] = theirs;
    bitboards[2] = layout.houses;
    for (let symbol = 0; symbol < SYMBOLS.length; symbol += 1) {
      bitboards[3 + symbol] = layout.cellsWithSymbol[symbol];
    }
    bitboards[8] = position.truce >= 0 ? bit(position.truce) & FULL : 0;
    bitboards[9] = mayCapture;
    bitboards[10] = couldBeCaptured;
    bitboards[11] = completesMine & legal;
    bitboards[12] = completesTheirs & opponentMayPlay;
    bitboards[13] = completesMine;
    bitboards[14] = completesTheirs;
    for (let plane = 0; plane < CELL_PLANES; plane += 1) {
      const base = offset + plane * CELLS;
      for (let cell = 0; cell < CELLS; cell += 1) {
        out[base + cell] = (bitboards[plane] >>> cell) & 1;
      }
    }

    const constants = new Array(PLANE_COUNT - CELL_PLANES).fill(0);
    for (let symbol = 0; symbol < SYMBOLS.length; symbol += 1) {
      const houses = layout.housesOf[symbol];
      constants[symbol] = (mine & houses) !== 0 ? 1 : 0;
      constants[5 + symbol] = (theirs & houses) !== 0 ? 1 : 0;
    }
    constants[10] = position.reserve(side) / PIECES_PER_PLAYER;
    constants[11] = position.reserve(opponent) / PIECES_PER_PLAYER;
    constants[12] = position.ply === 0 ? 1 : 0;
    constants[13] = Math.max(this.plyLimit - position.ply, 0) / this.plyLimit;
    constants[14] = 1;
    for (let index = 0; index < constants.length; index += 1) {
      const base = offset + (CELL_PLANES + index) * CELLS;
      out.fill(constants[index], base, base + CELLS);
    }
    return out;
  }
}

/** Whether two positions are the same (pieces, ply and truce). */
export function samePosition(a, b) {
  return (
    a.pieces[0] === b.pieces[0] && a.pieces[1] === b.pieces[1] && a.ply === b.ply && a.truce === b.truce
  );
}

/** The layout notation of a model description (the default when absent). */
function layoutOf(description) {
  const layout = description.layout;
  if (layout === undefined || layout === null) {
    return DEFAULT_LAYOUT;
  }
  if (typeof layout === 'string') {
    return layout;
  }
  if (typeof layout.notation === 'string') {
    return layout.notation;
  }
  throw new Error('invalid model description: layout must be the layout notation');
}

/**
 * Heraldis as the Grand Maître's modules take a game (grandmaitre.js): its
 * name, its encoding's version, and its rules under a model description
 * (the layout and the ply limit of model.json).
 */
export const HERALDIS = Object.freeze({
  name: 'heraldis',
  encodingVersion: ENCODING_VERSION,
  game: (description) => new Heraldis(layoutOf(description), description.ply_limit ?? DEFAULT_PLY_LIMIT),
});

/**
 * The Grand Maître playing Heraldis: `GrandMaitre.load(ort, { model,
 * description, book }, sessionOptions)` (see grandmaitre.js).
 */
export const GrandMaitre = Object.freeze({
  load: (ort, files, sessionOptions) => Engine.load(ort, HERALDIS, files, sessionOptions),
});
