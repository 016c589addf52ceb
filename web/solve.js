// The exact solver and the guard of the Grand Maître at full strength, as
// the engine runs them (engine/src/solve.rs, engine/src/guard.rs): depth-
// first proof-number search (df-pn, Nagai 2002) with its table keyed by
// the position reduced by the rules' symmetries, the "1 + ε" widening of
// its thresholds, a budget of positions; and the guard that asks it before
// the search's move is trusted. Same moves, same order, same arithmetic
// (proof numbers are 32-bit unsigned, ∞ the largest), so that within the
// same budget it proves what the engine proves, position for position.
//
// Generic over the game (see grandmaitre.js): `players`, `result`,
// `legalActions`, `applyLegal`, `mapPosition` and `ruleSymmetries()` (the
// cell maps under which the rules are the same, the identity first), and
// optionally `positionKey(position)`, two numbers that tell positions
// apart (faster than their notation).

/** ∞: proven (or disproven) for good. */
const INFINITE = 4294967295;

/** Values of a position for its side to move. */
export const WIN = 'win';
export const DRAW = 'draw';
export const LOSS = 'loss';

const flipped = (value) => (value === WIN ? LOSS : value === LOSS ? WIN : value);

/** Saturating addition that keeps ∞ for good. */
function add(a, b) {
  if (a === INFINITE || b === INFINITE) {
    return INFINITE;
  }
  return Math.min(a + b, INFINITE - 1);
}

const saturatingSub = (a, b) => Math.max(a - b, 0);

/** The numbers of a node from its children's. */
function combine(children, orNode) {
  let minProof = INFINITE;
  let minDisproof = INFINITE;
  let sumProof = 0;
  let sumDisproof = 0;
  for (const child of children) {
    minProof = Math.min(minProof, child.proof);
    minDisproof = Math.min(minDisproof, child.disproof);
    sumProof = add(sumProof, child.proof);
    sumDisproof = add(sumDisproof, child.disproof);
  }
  return orNode ? { proof: minProof, disproof: sumDisproof } : { proof: sumProof, disproof: minDisproof };
}

/** The child to search and the second best's number. */
function select(children, orNode) {
  const number = (entry) => (orNode ? entry.proof : entry.disproof);
  let best = 0;
  let second = INFINITE;
  for (let index = 1; index < children.length; index += 1) {
    const n = number(children[index]);
    if (n < number(children[best])) {
      second = number(children[best]);
      best = index;
    } else if (n < second) {
      second = n;
    }
  }
  return [best, second];
}

/** A threshold widened by "1 + ε" (at least by one), ∞ kept. */
function widen(n, epsilon) {
  return n >= INFINITE - 1 ? n : Math.max(Math.min(Math.ceil(n * (1 + epsilon)), INFINITE), Math.min(n + 1, INFINITE));
}

/** A df-pn solver for one game, keeping its table between solves. */
export class Solver {
  constructor(game) {
    this.game = game;
    this.maps = game.ruleSymmetries();
    this.keyOf = game.positionKey ? (p) => game.positionKey(p) : (p) => [String(p), 0];
    this.tables = [new Map(), new Map()];
    this.nodes = 0;
    this.budget = Infinity;
    this.outOfBudget = false;
    this.epsilon = 0.25;
  }

  /**
   * The position's key, `[high, low]`: the smallest of its images' keys
   * under the rules' symmetries (the game's `positionKey`, two numbers
   * that tell positions apart, or its notation).
   */
  key(position) {
    let key = this.keyOf(position);
    for (let index = 1; index < this.maps.length; index += 1) {
      const image = this.keyOf(this.game.mapPosition(position, this.maps[index]));
      if (image[0] < key[0] || (image[0] === key[0] && image[1] < key[1])) {
        key = image;
      }
    }
    return key;
  }

  /** The table entry of `key` for `attacker`, or undefined. */
  lookup(key, attacker) {
    return this.tables[attacker].get(key[0])?.get(key[1]);
  }

  /** Stores `entry` at `key` for `attacker`. */
  store(key, attacker, entry) {
    const table = this.tables[attacker];
    let inner = table.get(key[0]);
    if (inner === undefined) {
      inner = new Map();
      table.set(key[0], inner);
    }
    inner.set(key[1], entry);
  }

  /** The numbers of a finished game for `attacker`, or null. */
  finished(position, attacker) {
    const result = this.game.result(position);
    if (result === null) {
      return null;
    }
    return result[this.game.players[attacker]] === 1
      ? { proof: 0, disproof: INFINITE }
      : { proof: INFINITE, disproof: 0 };
  }

  stored(key, attacker) {
    return this.lookup(key, attacker) ?? { proof: 1, disproof: 1 };
  }

  numbers(position, attacker) {
    return this.finished(position, attacker) ?? this.stored(this.key(position), attacker);
  }

  spent() {
    if (!this.outOfBudget && this.nodes >= this.budget) {
      this.outOfBudget = true;
    }
    return this.outOfBudget;
  }

  /** Whether `attacker` wins `position` (null: the budget ran out). */
  provesWin(position, attacker) {
    const entry = this.numbers(position, attacker);
    if (entry.proof === 0 || entry.disproof === 0) {
      return entry.proof === 0;
    }
    const searched = this.mid(position, attacker, INFINITE - 1, INFINITE - 1);
    if (searched.proof === 0) {
      return true;
    }
    return searched.disproof === 0 ? false : null;
  }

  mid(position, attacker, proofLimit, disproofLimit) {
    const done = this.finished(position, attacker);
    if (done !== null) {
      return done;
    }
    const key = this.key(position);
    let entry = this.stored(key, attacker);
    if (entry.proof === 0 || entry.disproof === 0) {
      return entry;
    }
    this.nodes += 1;
    const orNode = position.side === attacker;
    const children = this.game.legalActions(position).map((action) => this.game.applyLegal(position, action));
    const known = children.map((child) => this.finished(child, attacker) ?? { key: this.key(child) });
    for (;;) {
      const numbers = known.map((k) => (k.key === undefined ? k : this.stored(k.key, attacker)));
      entry = combine(numbers, orNode);
      if (entry.proof >= proofLimit || entry.disproof >= disproofLimit || this.spent()) {
        break;
      }
      const [best, second] = select(numbers, orNode);
      const child = numbers[best];
      const [childProof, childDisproof] = orNode
        ? [Math.min(proofLimit, widen(second, this.epsilon)), add(child.disproof, saturatingSub(disproofLimit, entry.disproof))]
        : [add(child.proof, saturatingSub(proofLimit, entry.proof)), Math.min(disproofLimit, widen(second, this.epsilon))];
      const searched = this.mid(children[best], attacker, childProof, childDisproof);
      if (known[best].key !== undefined) {
        this.store(known[best].key, attacker, searched);
      }
    }
    this.store(key, attacker, entry);
    return entry;
  }

  /**
   * Solves `position` within `nodes` expanded positions: `{ solution,
   * bestMove, nodes }`, the value for the side to move (`win`, `draw`,
   * `loss`, or null when the budget runs out first) and an action that
   * keeps it.
   */
  solve(position, nodes) {
    this.nodes = 0;
    this.budget = nodes;
    this.outOfBudget = false;
    const side = position.side;
    let solution = null;
    const wins = this.provesWin(position, side);
    if (wins === true) {
      solution = WIN;
    } else if (wins === false) {
      const loses = this.provesWin(position, 1 - side);
      solution = loses === true ? LOSS : loses === false ? DRAW : null;
    }
    const bestMove = solution === null ? null : this.moveKeeping(position, solution);
    return { solution, bestMove, nodes: this.nodes };
  }

  moveKeeping(position, value) {
    const side = position.side;
    for (const action of this.game.legalActions(position)) {
      const child = this.game.applyLegal(position, action);
      if (value === WIN ? this.numbers(child, side).proof === 0 : value === DRAW ? this.provesWin(child, 1 - side) === false : true) {
        return action;
      }
    }
    return null;
  }
}

/** Solves the guard may run for one move beyond the root's. */
const MAX_CHILD_SOLVES = 8;

/**
 * The guard: the search's move unless the solver, within `nodes` positions
 * a solve, proves better (a winning move where the position is a proven
 * win; never a move proven lost while another is not). Its solver's table
 * is kept from one move to the next.
 */
export class Guard {
  constructor(game, nodes) {
    this.game = game;
    this.nodes = nodes;
    this.solver = new Solver(game);
  }

  valueOf(position, action) {
    const child = this.game.applyLegal(position, action);
    const value = this.solver.solve(child, this.nodes).solution;
    if (value === null) {
      return null;
    }
    return child.side === position.side ? value : flipped(value);
  }

  /**
   * `{ action, proven, overruled }` for `searched`, the search's action at
   * `position`, `preference` the other actions it would play, best first.
   */
  check(position, searched, preference) {
    const { solution, bestMove } = this.solver.solve(position, this.nodes);
    const keep = (proven) => ({ action: searched, proven, overruled: false });
    const overrule = (action, proven) => ({ action, proven, overruled: action !== searched });
    if (solution === WIN && bestMove !== null) {
      return this.valueOf(position, searched) === WIN ? keep(WIN) : overrule(bestMove, WIN);
    }
    if (solution === DRAW && bestMove !== null) {
      return this.valueOf(position, searched) === LOSS ? overrule(bestMove, DRAW) : keep(DRAW);
    }
    if (solution !== null) {
      return keep(solution);
    }
    if (this.valueOf(position, searched) !== LOSS) {
      return keep(null);
    }
    const alternatives = preference.filter((action) => action !== searched).slice(0, MAX_CHILD_SOLVES);
    for (const action of alternatives) {
      if (this.valueOf(position, action) !== LOSS) {
        return overrule(action, null);
      }
    }
    return keep(null);
  }
}
