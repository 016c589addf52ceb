// The Grand Maître in a web app, for any game: the network (run by
// onnxruntime, passed in by the caller), the bar and its calibration, the
// solution book, the advice and the levels, computed exactly as the Rust
// engine does (model/src/bar.rs, engine/src/book.rs, engine/src/levels.rs;
// the search in search.js beside this file). The search's settings and the
// levels are read from the export's model.json, never copied here.
//
// A game's module (heraldis.js) gives its rules and encoding as a game
// object and a description of itself: `{ name, encodingVersion,
// game(description) }`, where the game has `players` (the two players'
// names, first then second: the keys of the bar), `inputShape` ([planes,
// height, width]), `actionCount`, `cellCount`, `result(position)` (null, or
// the exact `{ [first]: 1|0, draw, [second] }`), `ply(position)` (plies
// played), `legalActions`,
// `applyLegal`, `apply`, `parsePosition`, `parseAction`, `formatAction`,
// `encode(position, planes, offset)`, `isPosition(value)`,
// `samePosition(a, b)`, and, for a
// book, `mapPosition(position, cellMap)` and `mapAction(action, cellMap)`;
// a position has `side` (0 first player, 1 second) and its notation as
// `String(position)`.

import { LOSS, Player, Search, WIN, orient, searchSettings, softmax3 } from './search.js';
import { Guard } from './solve.js';

/** Shows user input on one line, shortened if long. */
export function shown(text) {
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
export function numberOf(value) {
  if (typeof value === 'number') {
    return value;
  }
  return typeof value === 'string' ? Number(value) : Number.NaN;
}

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
 * Each of P(first player wins), P(draw), P(second player wins) through its
 * curve, then renormalised (unchanged if the curves give all three
 * nothing).
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
 * null, or the knots of P(first wins), P(draw), P(second wins) where the
 * first player is to move, then where the second is), or null when the
 * model is not calibrated. `prefix` picks the network's own (`network_`)
 * or the bar's (``); `players` names the two players for the errors.
 */
function calibrationOf(description, prefix, players) {
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
      `invalid model description: calibration.${curvesKey} must hold 3 curves where ${players[0]} is to move, then 3 where ${players[1]} is`,
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
function barCalibration(description, players, barSimulations) {
  const calibration = calibrationOf(description, '', players);
  if (calibration === null) {
    return null;
  }
  const simulations = description.calibration.bar_simulations;
  return simulations === barSimulations ? calibration : null;
}

/**
 * P(first wins), P(draw), P(second wins) through a calibration, if any;
 * `side` is the side to move (0 the first player).
 */
function calibrated(bar, calibration, side) {
  if (calibration === null) {
    return bar;
  }
  let out = scaleByTemperature(bar, calibration.temperature);
  if (calibration.curves !== null) {
    out = applyCurves(out, calibration.curves[side]);
  }
  return out;
}

/** The features of the bar for who plays, version 2 (model/src/calibration/players.rs). */
const SEATED_FEATURES = [
  'one',
  'side',
  'log_odds',
  'log_draw',
  'log_odds_x_mean_squared',
  'difference',
  'mean',
  'difference_x_side',
  'time',
  'difference_x_time',
  'log_odds_x_time',
  'random_of_mover',
  'proof_first',
  'proof_first_x_rating',
  'proof_second',
  'proof_second_x_rating',
  'proof_draw',
  ...Array.from({ length: 10 }, (_, k) => `log_odds_at_${k + 1}`),
  ...Array.from({ length: 10 }, (_, k) => `log_draw_at_${k + 1}`),
];

/** Checked numbers of a description's list, `count` of them. */
function numbers(value, count, where) {
  if (!Array.isArray(value) || value.length !== count || !value.every((v) => Number.isFinite(numberOf(v)))) {
    throw new Error(`invalid model description: ${where} must be ${count} numbers`);
  }
  return value.map(numberOf);
}

/**
 * The bar for who plays in a model description (`calibration.players`),
 * checked, or null where the model has none (its bar is then the
 * calibration of one pairing).
 */
function seatedModelOf(description, barSimulations) {
  const players = description.calibration?.players;
  if (players === null || players === undefined || description.calibration.bar_simulations !== barSimulations) {
    return null;
  }
  if (players.features_version !== 2 || JSON.stringify(players.features) !== JSON.stringify(SEATED_FEATURES)) {
    throw new Error('invalid model description: calibration.players has features this module does not compute');
  }
  const count = SEATED_FEATURES.length;
  const best = players.plays_its_best ?? [];
  return {
    ratings: numbers(players.ratings, 10, 'calibration.players.ratings'),
    random: numbers(players.random_moves, 10, 'calibration.players.random_moves'),
    playsItsBest: numbers(Array.isArray(best) ? best.map(Number) : best, 10, 'calibration.players.plays_its_best').map(Boolean),
    plyScale: numbers([players.ply_scale], 1, 'calibration.players.ply_scale')[0],
    weights: [0, 1].map((k) => numbers(players.weights?.[k], count, `calibration.players.weights[${k}]`)),
    // Whether the second player's win's logit is the search's log-odds
    // plus the weights'.
    fromSearch: searchRidgeOf(players.search_ridge),
    humanLevels: numbers(players.human_levels, players.human_levels?.length ?? -1, 'calibration.players.human_levels'),
    moves: moveModelOf(players.moves),
  };
}

/**
 * Whether `calibration.players.search_ridge` is given (the second player's
 * win's weights are offsets from the search's log-odds, fitted under that
 * ridge) or null (the weights' logits alone).
 */
function searchRidgeOf(ridge) {
  if (ridge === null || ridge === undefined) {
    return false;
  }
  numbers([ridge], 1, 'calibration.players.search_ridge');
  return true;
}

/**
 * How each level moves (`calibration.players.moves`: the exponent of the
 * network's priors and the slip of each level 1-10), or null where the
 * model has none (a person is then every level alike).
 */
function moveModelOf(moves) {
  if (moves === null || moves === undefined) {
    return null;
  }
  const sharpness = numbers(moves.sharpness, 10, 'calibration.players.moves.sharpness');
  const slip = numbers(moves.slip, 10, 'calibration.players.moves.slip');
  if (sharpness.some((b) => b < 0) || slip.some((s) => s < 0 || s > 1)) {
    throw new Error('invalid model description: calibration.players.moves has a negative exponent or a slip outside 0-1');
  }
  const tempering = moves.tempering === undefined ? 1 : numberOf(moves.tempering);
  if (!(Number.isFinite(tempering) && tempering > 0)) {
    throw new Error('invalid model description: calibration.players.moves.tempering must be a positive number');
  }
  return { sharpness, slip, tempering };
}

/** Priors are floored here before they are raised to a power (the engine's). */
const PRIOR_FLOOR = 1e-6;

/**
 * P(the move `played` of `priors` | level `level` plays it), as the engine
 * computes it (model/src/calibration/moves.rs): the level's random moves,
 * then its slip, then the priors sharpened by its exponent.
 */
function moveLikelihood(model, level, priors, played) {
  const sharpness = model.moves.sharpness[level - 1];
  const slip = model.moves.slip[level - 1];
  const random = model.random[level - 1];
  const uniform = 1 / priors.length;
  const logs = priors.map((p) => sharpness * Math.log(Math.max(p, PRIOR_FLOOR)));
  const top = Math.max(...logs);
  const sum = logs.reduce((total, l) => total + Math.exp(l - top), 0);
  const sharpened = Math.exp(logs[played] - top) / sum;
  return random * uniform + (1 - random) * (slip * uniform + (1 - slip) * sharpened);
}

/**
 * The belief `[[level, weight], ...]` over the model's human levels after
 * the moves `seen` (`{ priors, played }` each), from the uniform prior, each
 * move's likelihood raised to the model's tempering.
 */
function beliefOf(model, seen) {
  const logs = model.humanLevels.map((level) =>
    seen.reduce(
      (total, { priors, played }) => total + model.moves.tempering * Math.log(Math.max(moveLikelihood(model, level, priors, played), Number.MIN_VALUE)),
      0,
    ),
  );
  const top = Math.max(...logs);
  const weights = logs.map((l) => Math.exp(l - top));
  const sum = weights.reduce((a, b) => a + b, 0);
  return model.humanLevels.map((level, k) => [level, weights[k] / sum]);
}

/** Log-probabilities are floored here before the log-odds (the engine's). */
const SEATED_LOG_FLOOR = 1e-4;

/**
 * The features of a reading `{ wdl, proof, side, ply }` (proof: 0 the first
 * player wins, 1 draw, 2 the second wins, or null) for levels `[a, b]`,
 * as the engine computes them.
 */
function seatedFeatures(model, { wdl, proof, side, ply }, levels) {
  const [r1, r2] = levels.map((level) => model.ratings[level - 1] / 400);
  const difference = r1 - r2;
  const mean = (r1 + r2) / 2;
  const sign = side === 0 ? 1 : -1;
  const mover = model.random[levels[side] - 1];
  const time = ply / Math.max(model.plyScale, 1);
  let logOdds = 0;
  let logDraw = 0;
  let proofs = [0, 0, 0, 0, 0];
  if (proof === 0) {
    proofs = [1, r1, 0, 0, 0];
  } else if (proof === 2) {
    proofs = [0, 0, 1, r2, 0];
  } else if (proof === 1) {
    proofs = [0, 0, 0, 0, 1];
  } else {
    const [w, d, l] = wdl.map((p) => Math.log(Math.max(p, SEATED_LOG_FLOOR)));
    logOdds = w - l;
    logDraw = d;
  }
  const at = (level) => (levels[0] === level ? 1 : 0) + (levels[1] === level ? 1 : 0);
  const perLevel = Array.from({ length: 10 }, (_, k) => k + 1);
  return [
    1,
    sign,
    logOdds,
    logDraw,
    logOdds * mean * mean,
    difference,
    mean,
    difference * sign,
    time,
    difference * time,
    logOdds * time,
    sign * mover,
    ...proofs,
    ...perLevel.map((level) => logOdds * at(level)),
    ...perLevel.map((level) => logDraw * at(level)),
  ];
}

/**
 * The offsets of the draw's logit and of the second player's win's where
 * the weights are fitted as offsets from the search: none for the draw,
 * the search's own log-odds of the second player's win over the first's
 * (each probability floored) for the second player's win; none where the
 * result is proven (as the engine's).
 */
function searchLogits({ wdl, proof }) {
  if (proof !== null && proof !== undefined) {
    return [0, 0];
  }
  const [w, , l] = wdl.map((p) => Math.log(Math.max(p, SEATED_LOG_FLOOR)));
  return [0, l - w];
}

/**
 * P(first wins), P(draw), P(second wins) of a reading for levels `[a, b]`:
 * certain where a proven win is kept by the winner's level (it plays its
 * best, and the proof is the book's, or the game's best levels ask the
 * solver), else the model's.
 */
function wdlAtLevels(model, reading, levels) {
  const { proof, kept, winsNow, side } = reading;
  if (kept && (proof === 0 || proof === 2) && model.playsItsBest[levels[proof / 2] - 1]) {
    return [0, 1, 2].map((k) => (k === proof ? 1 : 0));
  }
  const x = seatedFeatures(model, reading, levels);
  const dot = (w) => w.reduce((total, weight, i) => total + weight * x[i], 0);
  const offsets = model.fromSearch ? searchLogits(reading) : [0, 0];
  const fitted = softmax([0, offsets[0] + dot(model.weights[0]), offsets[1] + dot(model.weights[1])]);
  if (winsNow === null || winsNow === undefined) {
    return fitted;
  }
  // The mover can win at once: it does unless a random move comes instead
  // (which may be a winning one too); what follows a miss is the model's.
  const random = model.random[levels[side] - 1];
  const now = 1 - random + random * winsNow;
  return fitted.map((p, k) => now * (k === 2 * side ? 1 : 0) + (1 - now) * p);
}

/** The share of the legal moves of `position` that win at once, or null. */
function winsNowOf(game, position) {
  const mover = game.players[position.side];
  const legal = game.legalActions(position);
  const winning = legal.filter((action) => game.result(game.applyLegal(position, action))?.[mover] === 1).length;
  return winning > 0 ? winning / legal.length : null;
}

/**
 * P(first wins), P(draw), P(second wins) of a reading for `seats`
 * (`[first, second]`, each a level 1-10 or 'human'), a human read through
 * their belief in `beliefs` (`[level, weight]` lists per side, or null: the
 * uniform prior over the model's human levels), as the engine computes it.
 */
function seatedWdl(model, reading, seats, beliefs = [null, null]) {
  const uniform = model.humanLevels.map((level) => [level, 1 / model.humanLevels.length]);
  const choices = (seat, side) => (seat === 'human' ? beliefs[side] ?? uniform : [[seat, 1]]);
  const sum = [0, 0, 0];
  for (const [a, wa] of choices(seats[0], 0)) {
    for (const [b, wb] of choices(seats[1], 1)) {
      const p = wdlAtLevels(model, reading, [a, b]);
      p.forEach((value, k) => {
        sum[k] += wa * wb * value;
      });
    }
  }
  return sum;
}

/** The beliefs of `bar`, keyed by the players' names: `{ meanLevel, levels, moves }`. */
function beliefsNamed(game, beliefs) {
  const named = {};
  beliefs.forEach((belief, side) => {
    if (belief !== null) {
      named[game.players[side]] = {
        meanLevel: belief.levels.reduce((total, [level, weight]) => total + level * weight, 0),
        levels: belief.levels,
        moves: belief.moves,
      };
    }
  });
  return named;
}

/**
 * The seats `{ [first]: level | 'human', [second]: ... }` (the players'
 * names as keys; a side left out is level 10) as `[first, second]`, or a
 * one-line error.
 */
function seatsOf(game, players = {}) {
  if (players === null || typeof players !== 'object') {
    throw new Error('invalid players: expected an object such as { light: 3, dark: "human" }');
  }
  for (const key of Object.keys(players)) {
    if (!game.players.includes(key)) {
      throw new Error(`invalid players: '${shown(key)}' is not a side of this game: ${game.players.join(' or ')}`);
    }
  }
  return game.players.map((name) => {
    const seat = players[name] ?? 10;
    if (seat === 'human') {
      return seat;
    }
    const level = numberOf(seat);
    if (!Number.isInteger(level) || level < 1 || level > 10) {
      throw new Error(`invalid players: ${name} must be a level 1-10 or "human", found ${shown(JSON.stringify(seat))}`);
    }
    return level;
  });
}

/** The seats in the engine's words: `light=10 dark=human`. */
function seatsText(game, seats) {
  return game.players.map((name, k) => `${name}=${seats[k]}`).join(' ');
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

/** A finished game's result as [first wins, draw, second wins]. */
function resultTriple(game, result) {
  const [first, second] = game.players;
  return [result[first], result.draw, result[second]];
}

/** The bar `{ [first], draw, [second], exact }` of three probabilities. */
function barOf(game, [first, draw, second], exact) {
  const [firstName, secondName] = game.players;
  return { [firstName]: first, draw, [secondName]: second, exact };
}

/** The rules as the search sees them (see search.js). */
function searchRules(game) {
  return {
    side: (position) => position.side,
    terminal: (position) => {
      const result = game.result(position);
      return result === null ? null : resultTriple(game, result);
    },
    legalActions: (position) => game.legalActions(position),
    apply: (position, action) => game.applyLegal(position, action),
  };
}

/** The bar of a finished game: its result. */
function exactBar(game, result) {
  return barOf(game, resultTriple(game, result), true);
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
 * force (model.json's) and kept only if every
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
    const winner = game.players.indexOf(description.winner);
    const maps = description.symmetries;
    const cells = game.cellCount;
    const isMap = (map) =>
      Array.isArray(map) &&
      map.length === cells &&
      new Set(map).size === cells &&
      map.every((cell) => Number.isInteger(cell) && cell >= 0 && cell < cells);
    if (winner < 0 || !Array.isArray(maps) || maps.length === 0 || !maps.every(isMap)) {
      throw new Error(
        `invalid model description: book needs winner ${game.players.join(' or ')} and symmetries as cell maps`,
      );
    }
    this.game = game;
    this.winner = winner;
    this.maps = maps.map((map) => {
      const inverse = new Array(cells);
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
    const winnerKey = game.players[this.winner];
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

  /** The proven action in `position`, or null. */
  bestAction(position) {
    if (position.side !== this.winner) {
      return null;
    }
    for (const { map, inverse } of this.maps) {
      const image = this.game.mapPosition(position, map);
      const move = this.moves.get(String(image));
      if (move !== undefined) {
        return this.game.mapAction(this.game.parseAction(image, move), inverse);
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
    const winnerKey = game.players[this.winner];
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
    this.settings = searchSettings(description);
    this.networkCalibration = calibrationOf(description, 'network_', game.players);
    this.barCalibration = barCalibration(description, game.players, this.settings.barSimulations);
    this.seatedModel = seatedModelOf(description, this.settings.barSimulations);
    this.inputName = inputNameOf(description);
    this.rules = searchRules(game);
    // One network call at a time: a session runs one batch at once.
    this.queue = Promise.resolve();
    // The network's outputs on the positions it evaluated last.
    this.cache = new Map();
    this.evaluator = (positions) => this.evaluations(positions);
  }

  /**
   * Loads the exported model of a game.
   * @param ort the onnxruntime module (onnxruntime-web or onnxruntime-node)
   * @param rules the game's module's description of itself (see the head
   *   of this file)
   * @param {{model: Uint8Array|ArrayBuffer, description: object, book?: string}} options
   *   the bytes of model.onnx, the parsed model.json and, when model.json
   *   names one (`files.book`), the text of the solution book
   * @param [sessionOptions] passed to `ort.InferenceSession.create`
   */
  static async load(ort, rules, { model, description, book }, sessionOptions) {
    if (!description || typeof description !== 'object') {
      throw new Error('invalid model description: expected the parsed model.json');
    }
    if (description.game !== undefined && description.game !== rules.name) {
      throw new Error(`invalid model description: game '${shown(description.game)}', expected ${rules.name}`);
    }
    const version = encodingVersionOf(description);
    if (version !== null && version !== rules.encodingVersion) {
      throw new Error(
        `invalid model description: encoding version ${version}, this module writes version ${rules.encodingVersion}`,
      );
    }
    // The search's settings first: a description without them is refused
    // before the network loads.
    searchSettings(description);
    const game = rules.game(description);
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

  /** The levels of « Niveau », as model.json gives them. */
  get levels() {
    return this.settings.levels;
  }

  /** Level `number` (1 to 10); throws with a one-line message otherwise. */
  level(number) {
    return this.settings.level(number);
  }

  /** A position from its notation (checked), or the position itself. */
  position(position) {
    return this.game.isPosition(position) ? position : this.game.parsePosition(position);
  }

  /**
   * The raw network outputs for positions: `{ policyLogits, wdlLogits }`
   * per position, as Float32Arrays of the game's action count and 3
   * values.
   */
  logits(positions) {
    const list = positions.map((position) => this.position(position));
    const run = async () => {
      const shape = this.game.inputShape;
      const size = shape[0] * shape[1] * shape[2];
      const actions = this.game.actionCount;
      const planes = new Float32Array(list.length * size);
      list.forEach((position, index) => this.game.encode(position, planes, index * size));
      const input = new this.ort.Tensor('float32', planes, [list.length, ...shape]);
      const outputs = await this.session.run({ [this.inputName]: input });
      const policy = outputs.policy_logits.data;
      const wdl = outputs.wdl_logits.data;
      return list.map((_, index) => ({
        policyLogits: Float32Array.from(policy.subarray(index * actions, (index + 1) * actions)),
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
    const search = new Search(this.rules, root, { ...this.settings.search, simulations });
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
   * The bar: `{ [first], draw, [second], exact, proven, seated, players }`
   * keyed by the players' names (Heraldis: `{ light, draw, dark, ... }`):
   * P(first wins), P(draw), P(second wins) given the position and who
   * plays each side (`players`: `{ light: 3, dark: 'human' }`, a side left
   * out being level 10), from the network with the bar's search
   * (model.json's `search.bar_simulations`) read by the model's bar for who
   * plays, as the engine computes it. `proven` names the proven result
   * (`'light'`, `'draw'`, `'dark'`) where the game is over, the solution
   * book proves it (`book` then true) or the search does: « gain forcé »;
   * the probabilities still say how often these players convert it.
   * `exact` is true where the probabilities are certain: the game is over,
   * or a model without a bar for who plays shows a proof (`seated` false:
   * its calibration was fitted on one pairing). A human side is read
   * through a belief over the levels they play like, updated by their
   * moves in `history` (the moves that led to the position, oldest first,
   * each `{ position, move }`: the position it was played in and the move
   * in notation); `beliefs` gives it per human side where the model reads
   * moves: `{ meanLevel, levels: [[level, weight], ...], moves }` (`moves`:
   * how many of their moves it read).
   */
  async bar(position, { players = {}, history = [] } = {}) {
    const root = this.position(position);
    const seats = seatsOf(this.game, players);
    const named = seatsText(this.game, seats);
    const beliefs = await this.beliefs(seats, history);
    const believed = beliefsNamed(this.game, beliefs);
    const result = this.game.result(root);
    if (result !== null) {
      const bar = exactBar(this.game, result);
      const proven = this.game.players.find((name) => result[name] === 1) ?? 'draw';
      return { ...bar, proven, seated: this.seatedModel !== null, players: named, beliefs: believed };
    }
    const fromBook = this.book === null ? null : this.book.outcome(root);
    let wdl = null;
    let proof = null;
    if (fromBook !== null) {
      proof = (fromBook === WIN) === (root.side === 0) ? 0 : 2;
    } else {
      const search = new Search(this.rules, root, {
        ...this.settings.search,
        simulations: this.settings.barSimulations,
      });
      const found = await search.run(this.evaluator);
      wdl = orient(found.wdl, root.side);
      if (found.proof !== null) {
        proof = wdl.indexOf(1);
      }
    }
    const provenName = proof === null ? null : [this.game.players[0], 'draw', this.game.players[1]][proof];
    const book = fromBook !== null ? { book: true } : {};
    if (this.seatedModel !== null) {
      const reading = { wdl: wdl ?? [0, 0, 0], proof, side: root.side, ply: this.game.ply(root), kept: fromBook !== null || this.settings.guardNodes > 0, winsNow: winsNowOf(this.game, root) };
      const shownWdl = seatedWdl(this.seatedModel, reading, seats, beliefs.map((b) => b?.levels ?? null)).map(Math.fround);
      return { ...barOf(this.game, shownWdl, false), proven: provenName, seated: true, players: named, beliefs: believed, ...book };
    }
    const exactTriple = [0, 1, 2].map((k) => (k === proof ? 1 : 0));
    const out = proof !== null ? exactTriple : calibrated(wdl, this.barCalibration, root.side);
    return { ...barOf(this.game, out, proof !== null), proven: provenName, seated: false, players: named, beliefs: believed, ...book };
  }

  /**
   * The belief over the levels of each human seat of `seats` after their
   * moves in `history` (see `bar`), `[first, second]`: null for a level's
   * seat, or where the model does not read moves. The network's priors at
   * the positions they moved from are kept from earlier searches where
   * they can be.
   */
  async beliefs(seats, history) {
    if (!Array.isArray(history)) {
      throw new Error('invalid history: expected a list of { position, move }');
    }
    const moved = history.map((entry, index) => {
      if (entry === null || typeof entry !== 'object' || typeof entry.move !== 'string') {
        throw new Error(`invalid history: entry ${index + 1} must be { position, move } with the move in notation`);
      }
      const before = this.position(entry.position);
      let action;
      try {
        action = this.game.parseAction(before, entry.move);
      } catch (error) {
        throw new Error(`invalid history: entry ${index + 1}: ${shown(error.message)}`);
      }
      return { before, action };
    });
    const model = this.seatedModel;
    if (model === null || model.moves === null || !seats.includes('human')) {
      return [null, null];
    }
    const theirs = moved.filter(({ before }) => seats[before.side] === 'human');
    const evaluations = theirs.length === 0 ? [] : await this.evaluations(theirs.map(({ before }) => before));
    const seen = [[], []];
    theirs.forEach(({ before, action }, k) => {
      const legal = this.game.legalActions(before);
      const logits = legal.map((a) => evaluations[k].policyLogits[a]);
      const top = Math.max(...logits);
      const exp = logits.map((l) => Math.exp(l - top));
      const sum = exp.reduce((a, b) => a + b, 0);
      seen[before.side].push({ priors: exp.map((e) => Math.fround(e / sum)), played: legal.indexOf(action) });
    });
    return seats.map((seat, side) => (seat === 'human' ? { levels: beliefOf(model, seen[side]), moves: seen[side].length } : null));
  }

  /**
   * The advice (« Conseil »): the move of level `level` (model.json's
   * advice level by default: the full strength) with what its search saw:
   * `{ move, principalVariation, children, wdl, proof, fromBook }` (see
   * `search`); where the solution book proves a win and the level plays
   * its best, the book's move (`fromBook`), without a search.
   */
  async advise(position, { level: number = this.settings.adviceLevel, seed = 0 } = {}) {
    return this.player({ level: number, seed }).select(position);
  }

  /**
   * A player at a level (1 to 10) for a whole game, as the engine's agent
   * plays: it keeps its tree from one move to the next. `select(position)`
   * resolves to its move and search (with `solved`, the value the book or
   * the solver proved, and `solverOverruled`); `observe(position, move)`
   * tells it of every move played (its own and the opponent's). A level
   * that plays its best asks the solver before it trusts its search, as
   * the engine does (solve.js). Where the solution
   * book proves a win, a level that plays its best (7 to 10) plays the
   * book's move without searching (`fromBook`), unless `book` is false.
   */
  player({ level: number = this.settings.adviceLevel, seed = 0, book = true } = {}) {
    const grandMaitre = this;
    const chosen = this.level(number);
    const player = new Player(this.rules, this.evaluator, { ...chosen, settings: this.settings.search, seed }, (a, b) =>
      this.game.samePosition(a, b),
    );
    const useBook = book && playsItsBest(chosen);
    // At full strength, the solver before the search (solve.js), its table
    // kept for the whole game.
    const guard =
      playsItsBest(chosen) && this.settings.guardNodes > 0 ? new Guard(this.game, this.settings.guardNodes) : null;
    return {
      level: chosen,
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
            solved: WIN,
            solverOverruled: false,
          };
        }
        const { action: searched, result } = await player.select(root);
        const guarded =
          guard === null
            ? { action: searched, proven: null, overruled: false }
            : guard.check(
                root,
                searched,
                result.children.map((c) => c.action),
              );
        const described = grandMaitre.described(root, player.search, result, guarded.action);
        if (guarded.overruled) {
          // The search's line began with the move the solver overruled.
          described.principalVariation = [described.move];
        }
        return { ...described, fromBook: false, solved: guarded.proven, solverOverruled: guarded.overruled };
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
   * win/draw/loss keyed by the players' names (Heraldis: `{ light, draw,
   * dark }`) and the legal move of highest
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
        const { exact: _, ...bar } = exactBar(this.game, result);
        return { ...bar, move: null, legalMoves: [] };
      }
      const { policyLogits, wdlLogits } = outputs[next];
      next += 1;
      return this.reading(position, policyLogits, wdlLogits);
    });
  }

  /** The network's reading from its outputs on an open position. */
  reading(position, policyLogits, wdlLogits) {
    const [win, draw, loss] = softmax(wdlLogits);
    const raw = position.side === 0 ? [win, draw, loss] : [loss, draw, win];
    const { exact: _, ...bar } = barOf(this.game, calibrated(raw, this.networkCalibration, position.side), false);
    const actions = this.game.legalActions(position);
    let best = -1;
    for (const action of actions) {
      if (best < 0 || policyLogits[action] > policyLogits[best]) {
        best = action;
      }
    }
    return {
      ...bar,
      move: best < 0 ? null : this.game.formatAction(position, best),
      legalMoves: actions.map((action) => this.game.formatAction(position, action)),
    };
  }
}
