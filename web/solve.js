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

/** A threshold widened by "1 + ε" (at least by one), ∞ kept. */
function widen(n, epsilon) {
  return n >= INFINITE - 1 ? n : Math.max(Math.min(Math.ceil(n * (1 + epsilon)), INFINITE), Math.min(n + 1, INFINITE));
}

/** The numbers of a won and of a lost position, for the attacker. */
const WON = Object.freeze({ proof: 0, disproof: INFINITE });
const LOST = Object.freeze({ proof: INFINITE, disproof: 0 });

/**
 * The solver's table for one attacker: proof and disproof numbers by a
 * position's two-number key, in open addressing over typed arrays (a
 * solve looks positions up millions of times; maps of maps of boxed
 * numbers spent most of its time). Keys that are not numbers (a game
 * without `positionKey`) go through a map to a slot.
 */
class Table {
  constructor() {
    this.size = 0;
    this.allocate(1 << 12);
    this.named = new Map();
  }

  allocate(capacity) {
    this.capacity = capacity;
    this.used = new Uint8Array(capacity);
    this.high = new Float64Array(capacity);
    this.low = new Float64Array(capacity);
    this.proof = new Uint32Array(capacity);
    this.disproof = new Uint32Array(capacity);
  }

  /** The slot of a numeric key: its own, or the empty one it would take. */
  slotOf(high, low) {
    const mask = this.capacity - 1;
    let hash = Math.imul(high | 0, 0x9e3779b1) ^ Math.imul((high / 4294967296) | 0, 0x85ebca6b);
    hash = (hash ^ Math.imul(low | 0, 0xc2b2ae35)) >>> 0;
    let slot = (hash ^ (hash >>> 15)) & mask;
    while (this.used[slot] === 1 && (this.high[slot] !== high || this.low[slot] !== low)) {
      slot = (slot + 1) & mask;
    }
    return slot;
  }

  /** The slot holding `key`, or -1. */
  find(key) {
    if (typeof key[0] !== 'number') {
      return this.named.get(key[0]) ?? -1;
    }
    const slot = this.slotOf(key[0], key[1]);
    return this.used[slot] === 1 ? slot : -1;
  }

  /** The entry at `key`, or `{ proof: 1, disproof: 1 }`. */
  entry(key) {
    const slot = this.find(key);
    return slot < 0 ? { proof: 1, disproof: 1 } : { proof: this.proof[slot], disproof: this.disproof[slot] };
  }

  /** Stores the numbers of `key`. */
  store(key, proof, disproof) {
    let slot;
    if (typeof key[0] !== 'number') {
      slot = this.named.get(key[0]);
      if (slot === undefined) {
        slot = this.named.size;
        this.named.set(key[0], slot);
        if (slot >= this.capacity) {
          this.grow();
        }
      }
    } else {
      slot = this.slotOf(key[0], key[1]);
      if (this.used[slot] === 0) {
        if (2 * (this.size + 1) > this.capacity) {
          this.grow();
          slot = this.slotOf(key[0], key[1]);
        }
        this.used[slot] = 1;
        this.high[slot] = key[0];
        this.low[slot] = key[1];
        this.size += 1;
      }
    }
    this.proof[slot] = proof;
    this.disproof[slot] = disproof;
  }

  /** Twice the slots, every entry kept. */
  grow() {
    const { capacity, used, high, low, proof, disproof } = this;
    this.allocate(capacity * 2);
    if (this.named.size > 0) {
      this.proof.set(proof);
      this.disproof.set(disproof);
      return;
    }
    for (let old = 0; old < capacity; old += 1) {
      if (used[old] === 1) {
        const slot = this.slotOf(high[old], low[old]);
        this.used[slot] = 1;
        this.high[slot] = high[old];
        this.low[slot] = low[old];
        this.proof[slot] = proof[old];
        this.disproof[slot] = disproof[old];
      }
    }
  }
}

/** A df-pn solver for one game, keeping its table between solves. */
export class Solver {
  constructor(game) {
    this.game = game;
    this.maps = game.ruleSymmetries();
    this.keyOf = game.positionKey ? (p) => game.positionKey(p) : (p) => [String(p), 0];
    this.tables = [new Table(), new Table()];
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

  /** The numbers of a finished game for `attacker`, or null. */
  finished(position, attacker) {
    const result = this.game.result(position);
    if (result === null) {
      return null;
    }
    return result[this.game.players[attacker]] === 1 ? WON : LOST;
  }

  stored(key, attacker) {
    return this.tables[attacker].entry(key);
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
    const table = this.tables[attacker];
    const key = this.key(position);
    const entry = this.stored(key, attacker);
    if (entry.proof === 0 || entry.disproof === 0) {
      return entry;
    }
    this.nodes += 1;
    const orNode = position.side === attacker;
    const children = this.game.legalActions(position).map((action) => this.game.applyLegal(position, action));
    const count = children.length;
    // A finished child's numbers are fixed; the others are read from the
    // table at every step (a deeper search may have changed any of them).
    const keys = new Array(count);
    const proofs = new Array(count);
    const disproofs = new Array(count);
    for (let index = 0; index < count; index += 1) {
      const finished = this.finished(children[index], attacker);
      if (finished === null) {
        keys[index] = this.key(children[index]);
      } else {
        keys[index] = null;
        proofs[index] = finished.proof;
        disproofs[index] = finished.disproof;
      }
    }
    for (;;) {
      // The node's numbers from its children's (min and sum) ...
      let minProof = INFINITE;
      let minDisproof = INFINITE;
      let sumProof = 0;
      let sumDisproof = 0;
      for (let index = 0; index < count; index += 1) {
        if (keys[index] !== null) {
          const slot = table.find(keys[index]);
          proofs[index] = slot < 0 ? 1 : table.proof[slot];
          disproofs[index] = slot < 0 ? 1 : table.disproof[slot];
        }
        minProof = Math.min(minProof, proofs[index]);
        minDisproof = Math.min(minDisproof, disproofs[index]);
        sumProof = add(sumProof, proofs[index]);
        sumDisproof = add(sumDisproof, disproofs[index]);
      }
      entry.proof = orNode ? minProof : sumProof;
      entry.disproof = orNode ? sumDisproof : minDisproof;
      if (entry.proof >= proofLimit || entry.disproof >= disproofLimit || this.spent()) {
        break;
      }
      // ... and the child to search, with the second best's number.
      const numbers = orNode ? proofs : disproofs;
      let best = 0;
      let second = INFINITE;
      for (let index = 1; index < count; index += 1) {
        const n = numbers[index];
        if (n < numbers[best]) {
          second = numbers[best];
          best = index;
        } else if (n < second) {
          second = n;
        }
      }
      const [childProof, childDisproof] = orNode
        ? [Math.min(proofLimit, widen(second, this.epsilon)), add(disproofs[best], saturatingSub(disproofLimit, entry.disproof))]
        : [add(proofs[best], saturatingSub(proofLimit, entry.proof)), Math.min(disproofLimit, widen(second, this.epsilon))];
      const searched = this.mid(children[best], attacker, childProof, childDisproof);
      if (keys[best] !== null) {
        table.store(keys[best], searched.proof, searched.disproof);
      }
    }
    table.store(key, entry.proof, entry.disproof);
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
