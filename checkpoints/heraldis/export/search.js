// The Grand Maître's search, as the engine runs it (engine/src/search/):
// PUCT with first-play urgency, leaves gathered in batches under virtual
// loss and evaluated with one network call per batch, the Monte-Carlo tree
// search solver, the move of best lower confidence bound, tree reuse, and
// the playing levels (engine/src/levels.rs), with the settings an export's
// model.json gives (`searchSettings`). Arithmetic follows the
// engine's: single precision where it computes in f32 (Math.fround), double
// precision where it accumulates in f64, so that on the same network
// outputs both visit the same moves the same number of times.
//
// Generic over the game: a game gives `side(state)` (0 first player, 1
// second), `terminal(state)` (null, or the exact [win, draw, loss] of the
// first player), `legalActions(state)` (in the engine's order) and
// `apply(state, action)`; an evaluator is an async function from an array
// of states to one `{ policyLogits, wdl }` each, the win/draw/loss for the
// side to move in single precision.

const f32 = Math.fround;

/**
 * The search's settings, read from an export's model.json (`search`, which
 * the engine writes from its own `SearchConfig`, levels and bar): `{ search,
 * levels, adviceLevel, barSimulations, guardNodes, level(number) }`, where
 * `guardNodes` is the budget of each solve of the guard (solve.js), `search` is
 * what `Search` takes, the levels (engine/src/levels.rs) are `{ number,
 * simulations, temperature, noise }` (the move-choice temperature on visit
 * counts, 0 for the move of best lower confidence bound, and the
 * probability of a uniformly random legal move). Throws a one-line error
 * for a description without them or with a value out of range.
 */
export function searchSettings(description) {
  const given = description?.search;
  const fail = (what) => {
    const line = what.replace(/[\r\n\t\v\f\u0085\u2028\u2029]+/g, ' ');
    const short = line.length > 200 ? `${line.slice(0, 197)}...` : line;
    throw new Error(`invalid model description: search.${short} (export the model again)`);
  };
  if (!given || typeof given !== 'object') {
    fail('is missing: it gives the engine\'s search settings and levels');
  }
  const number = (key, ok) => {
    const value = given[key];
    if (typeof value !== 'number' || !ok(value)) {
      fail(`${key} must be a number in range, found ${JSON.stringify(value)}`);
    }
    return value;
  };
  const whole = (value) => Number.isInteger(value) && value > 0;
  const flag = (key) => {
    if (typeof given[key] !== 'boolean') {
      fail(`${key} must be true or false`);
    }
    return given[key];
  };
  if (given.tactics !== null && given.tactics !== undefined) {
    fail('tactics: this search has none of the engine\'s tactical settings (leaf search, minimax backups, score utility), which this game\'s players use');
  }
  const search = Object.freeze({
    cPuct: f32(number('c_puct', (v) => v > 0)),
    cPuctBase: f32(number('c_puct_base', (v) => v > 0)),
    fpuReduction: f32(number('fpu_reduction', (v) => v >= 0)),
    leavesPerBatch: number('leaves_per_batch', whole),
    solver: flag('solver'),
    reuseTree: flag('reuse_tree'),
  });
  if (!Array.isArray(given.levels) || given.levels.length === 0) {
    fail('levels must list the levels');
  }
  const levels = Object.freeze(
    given.levels.map((entry, index) => {
      const ok =
        entry &&
        whole(entry.number) &&
        whole(entry.simulations) &&
        typeof entry.temperature === 'number' &&
        entry.temperature >= 0 &&
        typeof entry.noise === 'number' &&
        entry.noise >= 0 &&
        entry.noise <= 1;
      if (!ok) {
        fail(`levels[${index}] must be { number, simulations, temperature, noise }`);
      }
      const { number: n, simulations, temperature, noise } = entry;
      return Object.freeze({ number: n, simulations, temperature: f32(temperature), noise });
    }),
  );
  const level = (n) => {
    const found = levels.find((l) => l.number === n);
    if (!found) {
      throw new Error(`level must be between ${levels[0].number} and ${levels.at(-1).number}, found ${String(n)}`);
    }
    return found;
  };
  const adviceLevel = number('advice_level', (v) => levels.some((l) => l.number === v));
  const barSimulations = number('bar_simulations', whole);
  const guardNodes = number('guard_nodes', (v) => Number.isInteger(v) && v >= 0);
  return Object.freeze({ search, levels, adviceLevel, barSimulations, guardNodes, level });
}

const UNKNOWN = 0;
const FIRST_WINS = 1;
const DRAW = 2;
const SECOND_WINS = 3;

// Outcomes for a given player.
export const WIN = 'win';
export const DRAWN = 'draw';
export const LOSS = 'loss';

function proofOfFirstWdl(wdl) {
  if (wdl[0] === 1) {
    return FIRST_WINS;
  }
  return wdl[2] === 1 ? SECOND_WINS : DRAW;
}

function proofFromOutcome(outcome, player) {
  if (outcome === DRAWN) {
    return DRAW;
  }
  return (outcome === WIN) === (player === 0) ? FIRST_WINS : SECOND_WINS;
}

function outcomeFor(proof, player) {
  if (proof === UNKNOWN) {
    return null;
  }
  if (proof === DRAW) {
    return DRAWN;
  }
  return (proof === FIRST_WINS) === (player === 0) ? WIN : LOSS;
}

function firstWdl(proof) {
  switch (proof) {
    case FIRST_WINS:
      return [1, 0, 0];
    case DRAW:
      return [0, 1, 0];
    case SECOND_WINS:
      return [0, 0, 1];
    default:
      return null;
  }
}

const sign = (player) => (player === 0 ? 1 : -1);

/** A win/draw/loss triple seen by `player` (reversed for the second). */
export function orient(wdl, player) {
  return player === 0 ? wdl : [wdl[2], wdl[1], wdl[0]];
}

/** Softmax of three logits in single precision, as the engine computes it. */
export function softmax3(logits) {
  const max = Math.max(logits[0], logits[1], logits[2]);
  const e = [0, 1, 2].map((i) => f32(Math.exp(f32(logits[i] - max))));
  const total = f32(f32(e[0] + e[1]) + e[2]);
  return e.map((x) => f32(x / total));
}

class Node {
  constructor(state, side, proof) {
    this.state = state;
    this.side = side;
    this.visits = 0;
    this.inFlight = 0;
    this.winSum = 0;
    this.lossSum = 0;
    this.rawValue = 0;
    // { action, prior, child } in the game's order of legal actions.
    this.edges = null;
    this.proof = proof;
  }

  get expanded() {
    return this.edges !== null;
  }

  meanValue(player) {
    if (this.visits === 0) {
      return 0;
    }
    return sign(player) * f32((this.winSum - this.lossSum) / this.visits);
  }

  meanWdl(player) {
    const exact = firstWdl(this.proof);
    if (exact !== null) {
      return orient(exact, player);
    }
    if (this.visits === 0) {
      return [0, 1, 0];
    }
    const win = f32(this.winSum / this.visits);
    const loss = f32(this.lossSum / this.visits);
    return orient([win, Math.max(f32(f32(1 - win) - loss), 0), loss], player);
  }
}

/**
 * A PUCT search of one position, run with `run(evaluator)`; `advance`
 * keeps the subtree of a played move for the next search.
 */
export class Search {
  /**
   * @param game the rules (see the head of this file)
   * @param state the root position
   * @param config the settings (`searchSettings(description).search`) and
   *   `simulations`
   */
  constructor(game, state, config) {
    this.game = game;
    this.config = { ...config };
    this.root = this.makeNode(state);
    this.simulations = 0;
    this.pending = [];
  }

  makeNode(state) {
    const side = this.game.side(state);
    const exact = this.game.terminal(state);
    return new Node(state, side, exact === null ? UNKNOWN : proofOfFirstWdl(exact));
  }

  /** The root position. */
  get state() {
    return this.root.state;
  }

  /** Changes the settings (the next `run` uses them). */
  setConfig(config) {
    this.config = { ...this.config, ...config };
  }

  /** Whether the search has used its simulations or proven the root. */
  isFinished() {
    return (
      this.pending.length === 0 &&
      (this.simulations >= this.config.simulations || this.root.proof !== UNKNOWN)
    );
  }

  /**
   * Runs `config.simulations` simulations (more on top of a reused tree),
   * one evaluator call per batch of leaves; resolves to `result()`.
   */
  async run(evaluator) {
    this.simulations = 0;
    for (;;) {
      this.gather();
      if (this.pending.length === 0) {
        if (this.isFinished()) {
          return this.result();
        }
        continue;
      }
      const outputs = await evaluator(this.pending.map((leaf) => leaf.node.state));
      if (outputs.length !== this.pending.length) {
        throw new Error(`the evaluator answered ${outputs.length} of ${this.pending.length} positions`);
      }
      this.absorb(outputs);
    }
  }

  /** Selects up to `leavesPerBatch` new leaves under virtual loss. */
  gather() {
    const wanted = Math.max(this.config.leavesPerBatch, 1);
    let attempts = 0;
    while (this.pending.length < wanted && attempts < 4 * wanted) {
      attempts += 1;
      if (
        this.root.proof !== UNKNOWN ||
        this.simulations + this.pending.length >= this.config.simulations
      ) {
        break;
      }
      const descent = this.descend();
      if (descent === 'collision') {
        break;
      }
    }
    return this.pending.length;
  }

  descend() {
    const path = [];
    let node = this.root;
    for (;;) {
      if (node.proof !== UNKNOWN) {
        path.push(node);
        for (const n of path) {
          n.inFlight += 1;
        }
        this.backup(path, firstWdl(node.proof));
        if (this.config.solver) {
          this.propagateProof(path);
        }
        return 'resolved';
      }
      if (!node.expanded) {
        if (node.inFlight > 0) {
          return 'collision';
        }
        path.push(node);
        for (const n of path) {
          n.inFlight += 1;
        }
        this.pending.push({ node, path });
        return 'leaf';
      }
      const edge = node.edges[this.selectPuct(node)];
      path.push(node);
      if (edge.child === null) {
        edge.child = this.makeNode(this.game.apply(node.state, edge.action));
      }
      node = edge.child;
    }
  }

  /** c(N) · √N: the exploration factor of a node with N visits. */
  exploration(visits) {
    const { cPuct, cPuctBase } = this.config;
    const c = f32(cPuct + f32(Math.log(f32(f32(f32(1 + visits) + cPuctBase) / cPuctBase))));
    return f32(c * f32(Math.sqrt(Math.max(visits, 1))));
  }

  /** PUCT with first-play urgency (the engine's `select_puct`). */
  selectPuct(parent) {
    const side = parent.side;
    const exploration = this.exploration(parent.visits + parent.inFlight);
    const sideSign = sign(side);
    let visitedMass = 0;
    let bestVisited = -Infinity;
    let bestVisitedIndex = -1;
    let bestPrior = -Infinity;
    let bestUnvisitedIndex = -1;
    const edges = parent.edges;
    for (let index = 0; index < edges.length; index += 1) {
      const edge = edges[index];
      const child = edge.child;
      if (child !== null && (child.visits + child.inFlight > 0 || child.proof !== UNKNOWN)) {
        const visits = child.visits + child.inFlight;
        if (child.visits > 0) {
          visitedMass = f32(visitedMass + edge.prior);
        }
        let value;
        if (child.proof !== UNKNOWN) {
          const exact = firstWdl(child.proof);
          value = f32(sideSign * (exact[0] - exact[2]));
        } else {
          value = f32((sideSign * (child.winSum - child.lossSum) - child.inFlight) / visits);
        }
        const score = f32(value + f32(f32(exploration * edge.prior) / f32(1 + visits)));
        if (score > bestVisited) {
          bestVisited = score;
          bestVisitedIndex = index;
        }
      } else if (edge.prior > bestPrior) {
        bestPrior = edge.prior;
        bestUnvisitedIndex = index;
      }
    }
    if (bestUnvisitedIndex < 0) {
      return bestVisitedIndex;
    }
    const parentValue = parent.visits > 0 ? parent.meanValue(side) : f32(parent.rawValue * sideSign);
    const firstPlay = f32(
      parentValue - f32(this.config.fpuReduction * f32(Math.sqrt(visitedMass))),
    );
    const unvisitedScore = f32(firstPlay + f32(exploration * bestPrior));
    if (bestVisitedIndex < 0 || unvisitedScore > bestVisited) {
      return bestUnvisitedIndex;
    }
    return bestVisitedIndex;
  }

  /** Expands and backs up the pending leaves with the evaluator's outputs. */
  absorb(outputs) {
    const pending = this.pending;
    this.pending = [];
    pending.forEach((leaf, index) => {
      const { policyLogits, wdl } = outputs[index];
      const first = orient(wdl, leaf.node.side);
      this.expand(leaf.node, policyLogits, f32(first[0] - first[2]));
      this.backup(leaf.path, first);
    });
  }

  /** The leaf's moves with priors from the policy logits (softmax in f32). */
  expand(node, policyLogits, rawValue) {
    const actions = this.game.legalActions(node.state);
    let max = -Infinity;
    for (let i = 0; i < actions.length; i += 1) {
      max = Math.max(max, policyLogits[actions[i]]);
    }
    let total = 0;
    const edges = new Array(actions.length);
    for (let i = 0; i < actions.length; i += 1) {
      const action = actions[i];
      const weight = f32(Math.exp(f32(policyLogits[action] - max)));
      total = f32(total + weight);
      edges[i] = { action, prior: weight, child: null };
    }
    for (let i = 0; i < edges.length; i += 1) {
      edges[i].prior = f32(edges[i].prior / total);
    }
    node.edges = edges;
    node.rawValue = rawValue;
  }

  /** One completed simulation of first-player `wdl` along `path`. */
  backup(path, wdl) {
    for (const node of path) {
      node.visits += 1;
      node.inFlight -= 1;
      node.winSum += wdl[0];
      node.lossSum += wdl[2];
    }
    this.simulations += 1;
  }

  /**
   * After a proven leaf: a node is won when one move wins for its side, and
   * decided once all its moves are (the best of them).
   */
  propagateProof(path) {
    for (let position = path.length - 2; position >= 0; position -= 1) {
      const node = path[position];
      if (node.proof !== UNKNOWN) {
        continue;
      }
      let best = null;
      let allProven = true;
      for (const edge of node.edges) {
        const outcome = edge.child === null ? null : outcomeFor(edge.child.proof, node.side);
        if (outcome === WIN) {
          best = WIN;
          allProven = true;
          break;
        }
        if (outcome === null) {
          allProven = false;
        } else if (best === null || (best === LOSS && outcome === DRAWN)) {
          best = outcome;
        }
      }
      if (best === null || !allProven) {
        return;
      }
      node.proof = proofFromOutcome(best, node.side);
    }
  }

  /**
   * What the search found: `{ side, wdl, proof, visits, children }`, wdl and
   * each child's for the side to move at the root, children most visited
   * first (then by prior), each `{ action, prior, visits, wdl, proof }`.
   */
  result() {
    const root = this.root;
    const side = root.side;
    const children = root.edges === null
      ? []
      : root.edges.map((edge) => {
          const child = edge.child;
          if (child === null) {
            return { action: edge.action, prior: edge.prior, visits: 0, wdl: [0, 1, 0], proof: null };
          }
          return {
            action: edge.action,
            prior: edge.prior,
            visits: child.visits,
            wdl: child.meanWdl(side),
            proof: outcomeFor(child.proof, side),
          };
        });
    children.sort((a, b) => b.visits - a.visits || b.prior - a.prior);
    return {
      side,
      wdl: root.meanWdl(side),
      proof: outcomeFor(root.proof, side),
      visits: root.visits,
      children,
    };
  }

  /**
   * The move to play: a proven win; else, among the moves not proven lost
   * (all if every one is), the best lower confidence bound at temperature
   * 0, or one drawn by visits^(1/T) with `random()` in [0, 1).
   */
  chooseMove(temperature = 0, random = Math.random) {
    const { children } = this.result();
    if (children.length === 0) {
      throw new Error('no move in a finished game');
    }
    const win = children.find((c) => c.proof === WIN);
    if (win) {
      return win.action;
    }
    const safe = children.filter((c) => c.proof !== LOSS);
    const candidates = safe.length > 0 ? safe : children;
    if (temperature === 0) {
      return lowerConfidenceBoundChoice(candidates);
    }
    return sampleByVisits(candidates, temperature, random);
  }

  /** Plays `action` at the root, keeping its subtree when it was searched. */
  advance(action) {
    const edge = this.root.edges?.find((e) => e.action === action);
    if (edge === undefined && !this.game.legalActions(this.root.state).includes(action)) {
      throw new Error(`illegal action ${String(action)} at the root`);
    }
    if (edge !== undefined && edge.child !== null && this.config.reuseTree && edge.child.expanded) {
      this.root = edge.child;
    } else {
      this.root = this.makeNode(this.game.apply(this.root.state, action));
    }
  }

  /**
   * The expected continuation: from the root the most visited child at each
   * step (proven wins first), while children have visits.
   */
  principalVariation(maxLength = 12) {
    const line = [];
    let node = this.root;
    while (line.length < maxLength && node.edges !== null) {
      let best = null;
      let bestKey = null;
      for (const edge of node.edges) {
        if (edge.child === null) {
          continue;
        }
        const wins = outcomeFor(edge.child.proof, node.side) === WIN ? 1 : 0;
        const key = [wins, edge.child.visits];
        if (bestKey === null || key[0] > bestKey[0] || (key[0] === bestKey[0] && key[1] >= bestKey[1])) {
          best = edge;
          bestKey = key;
        }
      }
      if (best === null || best.child.visits === 0) {
        break;
      }
      line.push(best.action);
      node = best.child;
    }
    return line;
  }
}

/**
 * The last of the maximal candidates by `compare` (Rust's `max_by`, which
 * the engine uses, keeps the last of equals).
 */
function lastMax(candidates, compare) {
  let best = candidates[0];
  for (const c of candidates.slice(1)) {
    if (compare(c, best) >= 0) {
      best = c;
    }
  }
  return best;
}

const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/** The most visited; among equals the best valued, then highest prior. */
function mostVisited(candidates) {
  const value = (c) => (c.visits > 0 || c.proof !== null ? f32(c.wdl[0] - c.wdl[2]) : 0);
  return lastMax(
    candidates,
    (a, b) => cmp(a.visits, b.visits) || cmp(value(a), value(b)) || cmp(a.prior, b.prior),
  );
}

const LCB_MIN_VARIANCE = f32(1e-4);
const LCB_VISIT_SHARE = f32(0.1);

/**
 * KataGo's choice: the best lower confidence bound Q − 2σ/√n among moves
 * with at least a tenth of the top visits.
 */
function lowerConfidenceBoundChoice(candidates) {
  const maxVisits = Math.max(...candidates.map((c) => c.visits));
  const threshold = Math.max(f32(maxVisits * LCB_VISIT_SHARE), 1);
  const bound = (c) => {
    const mean = f32(c.wdl[0] - c.wdl[2]);
    if (c.proof !== null) {
      return mean;
    }
    const n = Math.max(c.visits, 1);
    const variance = Math.max(f32(f32(c.wdl[0] + c.wdl[2]) - f32(mean * mean)), LCB_MIN_VARIANCE);
    return f32(mean - f32(2 * f32(Math.sqrt(f32(variance / n)))));
  };
  const eligible = candidates.filter((c) => c.visits >= threshold || c.proof !== null);
  if (eligible.length === 0) {
    return mostVisited(candidates).action;
  }
  return lastMax(eligible, (a, b) => cmp(bound(a), bound(b))).action;
}

/** A move drawn by visits^(1/T); the most visited when none has visits. */
function sampleByVisits(candidates, temperature, random) {
  const most = mostVisited(candidates);
  const max = Math.max(...candidates.map((c) => c.visits));
  if (temperature <= 1e-3 || max <= 0) {
    return most.action;
  }
  const weights = candidates.map((c) => (c.visits / max) ** (1 / temperature));
  const total = weights.reduce((a, b) => a + b, 0);
  let pick = random() * total;
  for (const [index, c] of candidates.entries()) {
    pick -= weights[index];
    if (weights[index] > 0 && pick <= 0) {
      return c.action;
    }
  }
  return most.action;
}

/**
 * A small seeded generator of numbers in [0, 1) (SplitMix64's output on a
 * 64-bit counter, via BigInt): the module's random choices, reproducible
 * from the seed.
 */
export function seededRandom(seed) {
  const mask = (1n << 64n) - 1n;
  let state = BigInt.asUintN(64, BigInt(seed));
  return () => {
    state = (state + 0x9e3779b97f4a7c15n) & mask;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
    z ^= z >> 31n;
    return Number(z >> 11n) / 2 ** 53;
  };
}

/**
 * A player at one level, as the engine's agent plays: a search per move on
 * the tree kept from the moves before it (`observe` every move played),
 * the level's choice, and its random moves.
 */
export class Player {
  /**
   * @param game the rules
   * @param evaluator the network (see the head of this file)
   * @param {{settings: object, simulations: number, temperature: number, noise: number, seed?: number}} options
   *   the search's settings (`searchSettings(description).search`), a
   *   level's three settings, and the seed of its random choices
   * @param [sameState] whether two states are the same position (the tree
   *   is kept only for the position it was searched from)
   */
  constructor(game, evaluator, options, sameState = (a, b) => a === b) {
    this.game = game;
    this.evaluator = evaluator;
    this.settings = options.settings;
    this.simulations = options.simulations;
    this.temperature = options.temperature;
    this.noise = options.noise;
    this.random = seededRandom(options.seed ?? 0);
    this.sameState = sameState;
    this.search = null;
    this.last = null;
  }

  /**
   * Searches `state` and chooses: `{ action, result, principalVariation }`.
   */
  async select(state) {
    if (this.search === null || !this.sameState(this.search.state, state)) {
      this.search = new Search(this.game, state, { ...this.settings, simulations: this.simulations });
    }
    const result = await this.search.run(this.evaluator);
    let action = this.search.chooseMove(this.temperature, this.random);
    const principalVariation = this.search.principalVariation(12);
    if (this.noise > 0 && this.random() < this.noise) {
      const actions = this.game.legalActions(state);
      action = actions[Math.floor(this.random() * actions.length)];
    }
    this.last = result;
    return { action, result, principalVariation };
  }

  /** A move played at `state` (by either side): the tree follows it. */
  observe(state, action) {
    if (this.search !== null && this.sameState(this.search.state, state)) {
      this.search.advance(action);
    } else {
      this.search = null;
    }
  }
}
