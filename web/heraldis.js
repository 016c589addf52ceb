// Heraldis for the web app: the rules, the network input, and the Grand
// Maître's bar, advice and levels, computed exactly as the Rust engine does
// (engine/src/games/heraldis, the search in search.js beside this file).
// ES modules with no dependencies: they run as they are in Node 20 and in
// browsers; the network runs on onnxruntime (onnxruntime-web in the app,
// onnxruntime-node in the tests), passed in by the caller.
//
// Cells: a1 = 0, b1 = 1, …, e1 = 4, a2 = 5, …, e5 = 24, that is
// 5 × (rank − 1) + file. Actions: 0..24 the cells (a placement, or a capture
// where the cell holds an opponent piece), 25 `pass`. Sets of cells are
// 25-bit integers, bit `c` for cell `c`.

import { ADVICE_LEVEL, BAR_SIMULATIONS, LEVELS, LOSS, Player, Search, WIN, level, orient, softmax3 } from './search.js';

export { ADVICE_LEVEL, BAR_SIMULATIONS, LEVELS, level };

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

/** Shows user input on one line, shortened if long. */
function shown(text) {
  let line = textOf(text).replace(/[\r\n\t\v\f\u0085\u2028\u2029]+/g, ' ');
  if (line.length > 120) {
    line = `${line.slice(0, 117)}...`;
  }
  return line;
}

/**
 * Any value as text, even one that `String` refuses (an object from JSON
 * whose `toString` member is not a function).
 */
function textOf(value) {
  if (typeof value === 'string') {
    return value;
  }
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * A number from a description's value: numbers, and text that spells one;
 * NaN for anything else (an object is never converted: its `valueOf` may be
 * anything).
 */
function numberOf(value) {
  if (typeof value === 'number') {
    return value;
  }
  return typeof value === 'string' ? Number(value) : Number.NaN;
}

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

// ---------------------------------------------------------------------------
// The Grand Maître: the network's bar and move

/** Probabilities are kept at least this far from 0 before taking logs. */
export const PROBABILITY_FLOOR = 1e-6;

/** Softmax of a few logits, in double precision. */
export function softmax(logits) {
  const values = Array.from(logits, Number);
  const top = Math.max(...values);
  const exp = values.map((value) => Math.exp(value - top));
  const sum = exp.reduce((a, b) => a + b, 0);
  return exp.map((value) => value / sum);
}

/**
 * Temperature scaling: p'ᵢ ∝ exp(ln(max(pᵢ, 1e-6)) / T), renormalised.
 */
export function scaleByTemperature(probabilities, temperature) {
  const logits = probabilities.map((p) => Math.log(Math.max(p, PROBABILITY_FLOOR)) / temperature);
  return softmax(logits);
}

/**
 * A calibration curve at `x`: linear between its knots `[x, y]`, flat
 * beyond the first and the last; without knots, `x` itself.
 */
export function curveAt(knots, x) {
  if (knots.length === 0) {
    return x;
  }
  if (x <= knots[0][0]) {
    return knots[0][1];
  }
  const last = knots[knots.length - 1];
  if (x >= last[0]) {
    return last[1];
  }
  let right = 1;
  while (knots[right][0] <= x) {
    right += 1;
  }
  const [x0, y0] = knots[right - 1];
  const [x1, y1] = knots[right];
  // Knots sorted by x: x0 <= x < x1, so the span is positive.
  return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
}

/**
 * Each of P(Light wins), P(draw), P(Dark wins) through its curve, then
 * renormalised (unchanged if the curves give all three nothing).
 */
export function applyCurves(probabilities, curves) {
  const mapped = probabilities.map((p, outcome) => curveAt(curves[outcome], p));
  const sum = mapped.reduce((a, b) => a + b, 0);
  return sum > 0 ? mapped.map((p) => p / sum) : probabilities;
}

/** Checked knots of one calibration curve (`{ knots: [[x, y], ...] }`). */
function curveKnots(curve, where) {
  const knots = curve?.knots;
  const fail = () => {
    throw new Error(
      `invalid model description: ${where} must be { knots: [[x, y], ...] } with x and y in [0, 1], both non-decreasing`,
    );
  };
  if (!Array.isArray(knots)) {
    fail();
  }
  for (const [index, knot] of knots.entries()) {
    if (!Array.isArray(knot) || knot.length !== 2) {
      fail();
    }
    for (const [axis, value] of knot.entries()) {
      if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
        fail();
      }
      if (index > 0 && value < knots[index - 1][axis]) {
        fail();
      }
    }
  }
  return knots;
}

/**
 * A calibration in a model description: `{ temperature, curves }` (`curves`
 * null, or the knots of P(Light wins), P(draw), P(Dark wins) where Light is
 * to move, then where Dark is), or null when the model is not calibrated.
 * `prefix` picks the network's own (`network_`) or the bar's (``).
 */
function calibrationOf(description, prefix) {
  const calibration = description.calibration;
  if (calibration === null || calibration === undefined) {
    return null;
  }
  const temperatureKey = `${prefix}temperature`;
  const curvesKey = `${prefix}curves`;
  const temperature = numberOf(calibration[temperatureKey]);
  if (!Number.isFinite(temperature) || temperature <= 0) {
    throw new Error(
      `invalid model description: calibration.${temperatureKey} must be a positive number, found ${shown(JSON.stringify(calibration[temperatureKey]))}`,
    );
  }
  const sides = calibration[curvesKey];
  if (sides === null || sides === undefined) {
    return { temperature, curves: null };
  }
  if (!Array.isArray(sides) || sides.length !== 2 || sides.some((side) => !Array.isArray(side) || side.length !== 3)) {
    throw new Error(
      `invalid model description: calibration.${curvesKey} must hold 3 curves where Light is to move, then 3 where Dark is`,
    );
  }
  const curves = sides.map((side, s) =>
    side.map((curve, outcome) => curveKnots(curve, `calibration.${curvesKey}[${s}][${outcome}]`)),
  );
  return { temperature, curves };
}

/**
 * The bar's calibration: only one fitted for the bar's search (the engine
 * never puts another search's value through it), else null.
 */
function barCalibration(description) {
  const calibration = calibrationOf(description, '');
  if (calibration === null) {
    return null;
  }
  const simulations = description.calibration.bar_simulations;
  return simulations === BAR_SIMULATIONS ? calibration : null;
}

/** P(Light wins), P(draw), P(Dark wins) through a calibration, if any. */
function calibrated(bar, calibration, lightToMove) {
  if (calibration === null) {
    return bar;
  }
  let out = scaleByTemperature(bar, calibration.temperature);
  if (calibration.curves !== null) {
    out = applyCurves(out, calibration.curves[lightToMove ? 0 : 1]);
  }
  return out;
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

/** The name of the network's input in a model description (`planes`). */
function inputNameOf(description) {
  const name = description.input?.name ?? 'planes';
  if (typeof name !== 'string') {
    throw new Error('invalid model description: input.name must be text');
  }
  return name;
}

/** The encoding version a model description names, or null. */
function encodingVersionOf(description) {
  const encoding = description.encoding;
  if (typeof encoding === 'number') {
    return encoding;
  }
  if (encoding && typeof encoding === 'object' && encoding.version !== undefined) {
    return numberOf(encoding.version);
  }
  if (description.encoding_version !== undefined) {
    return numberOf(description.encoding_version);
  }
  return null;
}

/** Positions whose network outputs are kept (about 6 MB). */
const EVALUATION_CACHE = 50_000;

/** The rules as the search sees them (see search.js). */
function searchRules(game) {
  return {
    side: (position) => position.side,
    terminal: (position) => {
      const result = game.result(position);
      return result === null ? null : [result.light, result.draw, result.dark];
    },
    legalActions: (position) => game.legalActions(position),
    apply: (position, action) => game.applyLegal(position, action),
  };
}

/** Whether two positions are the same (pieces, ply and truce). */
export function samePosition(a, b) {
  return (
    a.pieces[0] === b.pieces[0] && a.pieces[1] === b.pieces[1] && a.ply === b.ply && a.truce === b.truce
  );
}

/** The bar of a finished game: its result. */
function exactBar(result) {
  return { light: result.light, draw: result.draw, dark: result.dark, exact: true };
}

/** Whether a level plays its best move: no temperature, no random moves. */
function playsItsBest(setting) {
  return setting.temperature === 0 && setting.noise === 0;
}

/**
 * A solution book of the export (`book.txt`, described by model.json's
 * `book`), as the engine reads it (engine/src/book.rs): one winning move
 * per position of the winner's, looked up through the symmetries of the
 * rules. Like the engine, it is replayed from its root under the rules in
 * force (the layout and ply limit of model.json) and kept only if every
 * line ends in the winner's win; lines the replay does not reach are
 * dropped. The constructor throws where it is not a proof.
 */
export class Book {
  constructor(game, text, description) {
    if (typeof text !== 'string') {
      throw new Error(
        `invalid model description: it names the solution book ${shown(description.file)}; pass its text as \`book\``,
      );
    }
    const winner = ['light', 'dark'].indexOf(description.winner);
    const maps = description.symmetries;
    const isMap = (map) =>
      Array.isArray(map) &&
      map.length === CELLS &&
      new Set(map).size === CELLS &&
      map.every((cell) => Number.isInteger(cell) && cell >= 0 && cell < CELLS);
    if (winner < 0 || !Array.isArray(maps) || maps.length === 0 || !maps.every(isMap)) {
      throw new Error('invalid model description: book needs winner light or dark and symmetries as cell maps');
    }
    this.game = game;
    this.winner = winner;
    this.maps = maps.map((map) => {
      const inverse = new Array(CELLS);
      map.forEach((to, from) => {
        inverse[to] = from;
      });
      return { map, inverse };
    });
    this.moves = new Map();
    for (const line of text.split('\n')) {
      if (line.startsWith('#') || line.trim() === '') {
        continue;
      }
      const tab = line.indexOf('\t');
      if (tab < 0) {
        throw new Error(`invalid book: expected POSITION<TAB>MOVE, found '${shown(line)}'`);
      }
      this.moves.set(line.slice(0, tab), line.slice(tab + 1).trim());
    }
    this.check(game.parsePosition(description.root));
  }

  /**
   * Replays the proof from `root`: every line ends in the winner's win
   * and every winner's position on the way has its move, legal. Keeps
   * only the moves of the positions it reached; throws where it fails.
   */
  check(root) {
    const game = this.game;
    const winnerKey = this.winner === LIGHT ? 'light' : 'dark';
    const proven = new Map();
    const seen = new Set();
    const stack = [root];
    while (stack.length > 0) {
      const position = stack.pop();
      const key = String(position);
      if (seen.has(key)) {
        continue;
      }
      seen.add(key);
      const result = game.result(position);
      if (result !== null) {
        if (result[winnerKey] !== 1) {
          throw new Error(`invalid book: ${key}: the game ends without ${winnerKey}'s win`);
        }
        continue;
      }
      if (position.side === this.winner) {
        const move = this.moves.get(key);
        if (move === undefined) {
          throw new Error(`invalid book: ${key}: the book has no move there`);
        }
        let action;
        try {
          action = game.parseAction(position, move);
        } catch (error) {
          throw new Error(`invalid book: ${key}: ${error.message}`);
        }
        proven.set(key, move);
        stack.push(game.applyLegal(position, action));
      } else {
        const actions = game.legalActions(position);
        if (actions.length === 0) {
          throw new Error(`invalid book: ${key}: no legal move and the game is not over`);
        }
        for (const action of actions) {
          stack.push(game.applyLegal(position, action));
        }
      }
    }
    this.moves = proven;
  }

  /** `position` with every cell moved by `map`. */
  static transformed(position, map) {
    const moved = (pieces) => cellsOf(pieces).reduce((bits, cell) => bits | bit(map[cell]), 0);
    const truce = position.truce >= 0 ? map[position.truce] : -1;
    return new Position(moved(position.pieces[0]), moved(position.pieces[1]), position.ply, truce);
  }

  /** The proven action in `position`, or null. */
  bestAction(position) {
    if (position.side !== this.winner) {
      return null;
    }
    for (const { map, inverse } of this.maps) {
      const image = Book.transformed(position, map);
      const move = this.moves.get(String(image));
      if (move !== undefined) {
        const action = this.game.parseAction(image, move);
        return action === PASS ? PASS : inverse[action];
      }
    }
    return null;
  }

  /**
   * The value of an unfinished position for its side to move, when the
   * book proves it: 'win' at a winner's position of the book, 'loss' where
   * each of the loser's moves ends in the winner's win or reaches one;
   * null otherwise.
   */
  outcome(position) {
    const game = this.game;
    if (game.result(position) !== null) {
      return null;
    }
    if (position.side === this.winner) {
      return this.bestAction(position) === null ? null : WIN;
    }
    const winnerKey = this.winner === LIGHT ? 'light' : 'dark';
    const actions = game.legalActions(position);
    const lost =
      actions.length > 0 &&
      actions.every((action) => {
        const child = game.applyLegal(position, action);
        const result = game.result(child);
        return (result !== null && result[winnerKey] === 1) || this.bestAction(child) !== null;
      });
    return lost ? LOSS : null;
  }
}

/**
 * The Grand Maître in the app: the engine's search over the network (run
 * by onnxruntime) gives the win-probability bar, the advice (« Conseil »)
 * and the players of « Niveau » 1 to 10, as the engine computes them.
 */
export class GrandMaitre {
  constructor(ort, session, description, game, book = null) {
    this.book = book;
    this.ort = ort;
    this.session = session;
    this.description = description;
    this.game = game;
    this.networkCalibration = calibrationOf(description, 'network_');
    this.barCalibration = barCalibration(description);
    this.inputName = inputNameOf(description);
    this.rules = searchRules(game);
    // One network call at a time: a session runs one batch at once.
    this.queue = Promise.resolve();
    // The network's outputs on the positions it evaluated last.
    this.cache = new Map();
    this.evaluator = (positions) => this.evaluations(positions);
  }

  /**
   * Loads the exported model.
   * @param ort the onnxruntime module (onnxruntime-web or onnxruntime-node)
   * @param {{model: Uint8Array|ArrayBuffer, description: object, book?: string}} options
   *   the bytes of model.onnx, the parsed model.json and, when model.json
   *   names one (`files.book`), the text of the solution book
   * @param [sessionOptions] passed to `ort.InferenceSession.create`
   */
  static async load(ort, { model, description, book }, sessionOptions) {
    if (!description || typeof description !== 'object') {
      throw new Error('invalid model description: expected the parsed model.json');
    }
    if (description.game !== undefined && description.game !== 'heraldis') {
      throw new Error(`invalid model description: game '${shown(description.game)}', expected heraldis`);
    }
    const version = encodingVersionOf(description);
    if (version !== null && version !== ENCODING_VERSION) {
      throw new Error(
        `invalid model description: encoding version ${version}, this module writes version ${ENCODING_VERSION}`,
      );
    }
    const plyLimit = description.ply_limit ?? DEFAULT_PLY_LIMIT;
    const game = new Heraldis(layoutOf(description), plyLimit);
    // As in the engine, a book that is no proof under these rules (an
    // edited ply limit, another layout) is not used: `bookRefused` says why.
    let solution = null;
    let refused = null;
    if (description.book) {
      try {
        solution = new Book(game, book, description.book);
      } catch (error) {
        if (typeof book !== 'string') {
          throw error;
        }
        refused = error.message;
      }
    }
    const bytes = model instanceof Uint8Array ? model : new Uint8Array(model);
    const session = sessionOptions
      ? await ort.InferenceSession.create(bytes, sessionOptions)
      : await ort.InferenceSession.create(bytes);
    const grandMaitre = new GrandMaitre(ort, session, description, game, solution);
    grandMaitre.bookRefused = refused;
    return grandMaitre;
  }

  /**
   * The solution book's move in `position` (in notation), or null where
   * the book proves no win for the side to move (or there is no book).
   */
  bookMove(position) {
    const root = this.position(position);
    const action = this.book === null ? null : this.book.bestAction(root);
    return action === null ? null : this.game.formatAction(root, action);
  }

  /** A position from its notation (checked), or the Position itself. */
  position(position) {
    return position instanceof Position ? position : this.game.parsePosition(position);
  }

  /**
   * The raw network outputs for positions: `{ policyLogits, wdlLogits }`
   * per position, as Float32Arrays of 26 and 3 values.
   */
  logits(positions) {
    const list = positions.map((position) => this.position(position));
    const run = async () => {
      const size = PLANE_COUNT * CELLS;
      const planes = new Float32Array(list.length * size);
      list.forEach((position, index) => this.game.encode(position, planes, index * size));
      const input = new this.ort.Tensor('float32', planes, [list.length, PLANE_COUNT, SIZE, SIZE]);
      const outputs = await this.session.run({ [this.inputName]: input });
      const policy = outputs.policy_logits.data;
      const wdl = outputs.wdl_logits.data;
      return list.map((_, index) => ({
        policyLogits: Float32Array.from(policy.subarray(index * ACTION_COUNT, (index + 1) * ACTION_COUNT)),
        wdlLogits: Float32Array.from(wdl.subarray(index * 3, (index + 1) * 3)),
      }));
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => {});
    return result;
  }

  /** Forgets the network outputs kept from earlier searches. */
  forget() {
    this.cache.clear();
  }

  /**
   * The network as the search's evaluator: policy logits and the
   * win/draw/loss for the side to move, one network call for the positions
   * of the batch it has not seen lately (a search meets the same position
   * by several orders of moves, and the bar's search and the advice's
   * search the same positions).
   */
  async evaluations(positions) {
    const keys = positions.map(String);
    const results = keys.map((key) => this.cache.get(key));
    const missing = [...new Set(keys.filter((_, index) => results[index] === undefined))];
    if (missing.length > 0) {
      const outputs = await this.logits(missing.map((key) => positions[keys.indexOf(key)]));
      missing.forEach((key, k) => {
        const { policyLogits, wdlLogits } = outputs[k];
        const evaluation = { policyLogits, wdl: softmax3(wdlLogits) };
        keys.forEach((other, index) => {
          if (other === key) {
            results[index] = evaluation;
          }
        });
        this.cache.set(key, evaluation);
        if (this.cache.size > EVALUATION_CACHE) {
          this.cache.delete(this.cache.keys().next().value);
        }
      });
    }
    return results;
  }

  /**
   * A search of `position` with `simulations` (the levels' settings),
   * evaluated by `evaluator` (the network by default): `{ side, wdl,
   * proof, visits, move, principalVariation, children }`, where wdl and
   * each child's are for the side to move, children
   * `{ move, prior, visits, wdl, proof }` most visited first and `move`
   * the one of best lower confidence bound.
   */
  async search(position, { simulations, evaluator = this.evaluator }) {
    const root = this.position(position);
    if (this.game.result(root) !== null) {
      throw new Error(`no move to search: the game is over in '${root}'`);
    }
    const search = new Search(this.rules, root, { simulations });
    const result = await search.run(evaluator);
    return this.described(root, search, result, search.chooseMove(0));
  }

  /** A search's result with its moves in notation. */
  described(root, search, result, action) {
    const format = (a) => this.game.formatAction(root, a);
    return {
      side: result.side,
      wdl: result.wdl,
      proof: result.proof,
      visits: result.visits,
      move: format(action),
      principalVariation: this.line(root, search.principalVariation(12)),
      children: result.children.map((c) => ({ ...c, move: format(c.action) })),
    };
  }

  /** A line of actions from `position`, in notation. */
  line(position, actions) {
    const moves = [];
    let current = position;
    for (const action of actions) {
      moves.push(this.game.formatAction(current, action));
      current = this.game.apply(current, action);
    }
    return moves;
  }

  /**
   * The bar: `{ light, draw, dark, exact }`, P(Light wins), P(draw),
   * P(Dark wins) from the network with the engine's 64-simulation search,
   * calibrated by the model's calibration (when it was fitted for this
   * search); `exact` when it is the game's result, the solution book's
   * (`book` then true) or the search proved it.
   */
  async bar(position) {
    const root = this.position(position);
    const result = this.game.result(root);
    if (result !== null) {
      return exactBar(result);
    }
    const proven = this.book === null ? null : this.book.outcome(root);
    if (proven !== null) {
      const sideWins = proven === WIN;
      const lightWins = sideWins === (root.side === LIGHT);
      return { light: lightWins ? 1 : 0, draw: 0, dark: lightWins ? 0 : 1, exact: true, book: true };
    }
    const search = new Search(this.rules, root, { simulations: BAR_SIMULATIONS });
    const found = await search.run(this.evaluator);
    const lightToMove = root.side === LIGHT;
    const wdl = orient(found.wdl, root.side);
    if (found.proof !== null) {
      return { light: wdl[0], draw: wdl[1], dark: wdl[2], exact: true };
    }
    const [light, draw, dark] = calibrated(wdl, this.barCalibration, lightToMove);
    return { light, draw, dark, exact: false };
  }

  /**
   * The advice (« Conseil »): the move of level `level` (10 by default:
   * 3 200 simulations, the move of best lower confidence bound) with what
   * its search saw: `{ move, principalVariation, children, wdl, proof,
   * fromBook }` (see `search`); where the solution book proves a win and
   * the level plays its best, the book's move (`fromBook`), whatever the
   * search preferred.
   */
  async advise(position, { level: number = ADVICE_LEVEL, seed = 0 } = {}) {
    const root = this.position(position);
    const searched = await this.player({ level: number, seed, book: false }).select(root);
    const move = playsItsBest(level(number)) ? this.bookMove(root) : null;
    if (move === null) {
      return { ...searched, fromBook: false };
    }
    const line = searched.principalVariation[0] === move ? searched.principalVariation : [move];
    return { ...searched, move, principalVariation: line, fromBook: true };
  }

  /**
   * A player at a level (1 to 10) for a whole game, as the engine's agent
   * plays: it keeps its tree from one move to the next. `select(position)`
   * resolves to its move and search; `observe(position, move)` tells it of
   * every move played (its own and the opponent's). Where the solution
   * book proves a win, a level that plays its best (7 to 10) plays the
   * book's move without searching (`fromBook`), unless `book` is false.
   */
  player({ level: number = ADVICE_LEVEL, seed = 0, book = true } = {}) {
    const grandMaitre = this;
    const player = new Player(this.rules, this.evaluator, { level: number, seed }, samePosition);
    const useBook = book && playsItsBest(level(number));
    return {
      level: level(number),
      async select(position) {
        const root = grandMaitre.position(position);
        if (grandMaitre.game.result(root) !== null) {
          throw new Error(`no move to choose: the game is over in '${root}'`);
        }
        const move = useBook ? grandMaitre.bookMove(root) : null;
        if (move !== null) {
          return {
            side: root.side,
            wdl: [1, 0, 0],
            proof: WIN,
            visits: 0,
            move,
            principalVariation: [move],
            children: [],
            fromBook: true,
          };
        }
        const { action, result } = await player.select(root);
        return { ...grandMaitre.described(root, player.search, result, action), fromBook: false };
      },
      observe(position, move) {
        const root = grandMaitre.position(position);
        const action = typeof move === 'number' ? move : grandMaitre.game.parseAction(root, move);
        player.observe(root, action);
      },
    };
  }

  /**
   * The network alone, without search (not the bar): its own calibrated
   * win/draw/loss `{ light, draw, dark }` and the legal move of highest
   * policy logit (`move`, null when the game is over, whose exact result is
   * returned without running the network).
   */
  async networkReading(position) {
    return (await this.networkReadings([position]))[0];
  }

  /** `networkReading` for several positions, in one network batch. */
  async networkReadings(positions) {
    const list = positions.map((position) => this.position(position));
    const open = list.filter((position) => this.game.result(position) === null);
    const outputs = open.length > 0 ? await this.logits(open) : [];
    let next = 0;
    return list.map((position) => {
      const result = this.game.result(position);
      if (result !== null) {
        return { ...result, move: null, legalMoves: [] };
      }
      const { policyLogits, wdlLogits } = outputs[next];
      next += 1;
      return this.reading(position, policyLogits, wdlLogits);
    });
  }

  /** The network's reading from its outputs on an open position. */
  reading(position, policyLogits, wdlLogits) {
    const [win, draw, loss] = softmax(wdlLogits);
    const lightToMove = position.side === LIGHT;
    const raw = lightToMove ? [win, draw, loss] : [loss, draw, win];
    const bar = calibrated(raw, this.networkCalibration, lightToMove);
    const actions = this.game.legalActions(position);
    let best = -1;
    for (const action of actions) {
      if (best < 0 || policyLogits[action] > policyLogits[best]) {
        best = action;
      }
    }
    return {
      light: bar[0],
      draw: bar[1],
      dark: bar[2],
      move: best < 0 ? null : this.game.formatAction(position, best),
      legalMoves: actions.map((action) => this.game.formatAction(position, action)),
    };
  }
}
