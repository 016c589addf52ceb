// The exported module's player against an engine player, driven from Node:
// the module at a level (onnxruntime-node) against `grandmaitre gtp
// --player SPEC` (for example alpha-beta at depth 4), from random first
// moves each played twice with the colours swapped, as `grandmaitre arena
// --openings` plays them. Prints each game and the score with its Elo and
// 95 % interval.
//
//   node bench/match.mjs [--games 100] [--level 10] [--opponent alphabeta:depth=4]
//                        [--export DIR] [--bin PATH]
//
// --export defaults to ../checkpoints/heraldis/export, --bin to
// ../target/release/grandmaitre (relative to web/).

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-node';

import { GrandMaitre, Position } from '../heraldis.js';

const webDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { values: options } = parseArgs({
  options: {
    games: { type: 'string', default: '100' },
    level: { type: 'string', default: '10' },
    opponent: { type: 'string', default: 'alphabeta:depth=4' },
    export: { type: 'string', default: path.resolve(webDir, '../checkpoints/heraldis/export') },
    bin: { type: 'string', default: path.resolve(webDir, '../target/release/grandmaitre') },
    seed: { type: 'string', default: '0' },
  },
});
const games = Number(options.games);
const level = Number(options.level);

/** A GTP session with the engine: `ask(command)` resolves to its answer. */
function engine(bin, player) {
  const child = spawn(bin, ['gtp', '--player', player], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  let answer = [];
  lines.on('line', (line) => {
    if (line === '') {
      const text = answer.join('\n');
      answer = [];
      const next = waiting.shift();
      if (text.startsWith('=')) {
        next.resolve(text.slice(1).trim());
      } else {
        next.reject(new Error(`engine: ${text}`));
      }
    } else {
      answer.push(line);
    }
  });
  return {
    ask(command) {
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(`${command}\n`);
      });
    },
    async close() {
      await this.ask('quit');
      child.stdin.end();
    },
  };
}

/** A seeded generator of numbers in [0, 1). */
function generator(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Elo of a score, and its 95 % interval from the games' spread. */
function elo(points, count) {
  const toElo = (p) => (p <= 0 ? -Infinity : p >= 1 ? Infinity : -400 * Math.log10(1 / p - 1));
  const mean = points.reduce((a, b) => a + b, 0) / count;
  const variance = points.reduce((a, b) => a + (b - mean) ** 2, 0) / count;
  const margin = 1.96 * Math.sqrt(variance / count);
  return { score: mean, elo: toElo(mean), low: toElo(mean - margin), high: toElo(mean + margin) };
}

const description = JSON.parse(readFileSync(path.join(options.export, 'model.json'), 'utf8'));
const bookFile = description.files?.book;
const maitre = await GrandMaitre.load(ort, {
  model: readFileSync(path.join(options.export, 'model.onnx')),
  description,
  book: bookFile ? readFileSync(path.join(options.export, bookFile), 'utf8') : undefined,
});
const game = maitre.game;
const opponent = engine(options.bin, options.opponent);
const colourNames = ['light', 'dark'];
const random = generator(Number(options.seed));
const points = [];
let openingMove = null;
const started = Date.now();
for (let index = 0; index < games; index += 1) {
  const moduleFirst = index % 2 === 0;
  if (moduleFirst) {
    const actions = game.legalActions(Position.start());
    openingMove = game.formatAction(Position.start(), actions[Math.floor(random() * actions.length)]);
  }
  const player = maitre.player({ level, seed: index + 1 });
  await opponent.ask('clear_board');
  let position = Position.start();
  const moves = [];
  const play = async (move) => {
    await opponent.ask(`play ${colourNames[position.side]} ${move}`);
    player.observe(position, move);
    position = game.play(position, move);
    moves.push(move);
  };
  await play(openingMove);
  while (game.result(position) === null) {
    const moduleToMove = (position.side === 0) === moduleFirst;
    if (moduleToMove) {
      const { move } = await player.select(position);
      await play(move);
    } else {
      const move = await opponent.ask(`genmove ${colourNames[position.side]}`);
      player.observe(position, move);
      position = game.play(position, move);
      moves.push(move);
    }
  }
  const result = game.result(position);
  const mine = moduleFirst ? result.light : result.dark;
  points.push(result.draw === 1 ? 0.5 : mine);
  console.log(
    `game ${index + 1}: module ${moduleFirst ? 'light' : 'dark'}, ${result.draw === 1 ? 'draw' : mine === 1 ? 'module wins' : 'module loses'}: ${moves.join(' ')}`,
  );
}
await opponent.close();
const { score, elo: value, low, high } = elo(points, points.length);
const wins = points.filter((p) => p === 1).length;
const draws = points.filter((p) => p === 0.5).length;
console.log(
  `module level ${level} against ${options.opponent}: ${points.length} games, ${wins} wins, ${draws} draws, ${points.length - wins - draws} losses; score ${(100 * score).toFixed(1)} %, Elo ${value.toFixed(0)} [${low.toFixed(0)}, ${high.toFixed(0)}] (95 %), ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
