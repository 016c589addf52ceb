// The web module against the Rust engine's export: encoding, legal moves,
// onnxruntime-node inference, the network's own reading, the search (its
// visits, its move and the bar) and the levels must equal the test vectors
// that `grandmaitre export` writes into model.json.
//
//   GM_EXPORT=/path/to/export node --test test/node.test.mjs
//
// GM_EXPORT defaults to ../checkpoints/heraldis/export (relative to web/).

import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';

import { applyCurves, curveAt, scaleByTemperature } from '../grandmaitre.js';
import { Guard, Solver } from '../solve.js';
import {
  ACTION_COUNT,
  CELLS,
  DEFAULT_LAYOUT,
  ENCODING_VERSION,
  GrandMaitre,
  Heraldis,
  Layout,
  PLANE_COUNT,
  Position,
  completingCells,
  hasFourInRow,
  parseCell,
} from '../heraldis.js';

const webDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const exportDir = process.env.GM_EXPORT
  ? path.resolve(process.env.GM_EXPORT)
  : path.resolve(webDir, '../checkpoints/heraldis/export');

const TOLERANCE = 1e-4;

/** The export's solution book text, when model.json names one. */
function bookOf(description) {
  const file = description.files?.book;
  return file ? readFileSync(path.join(exportDir, file), 'utf8') : undefined;
}

function perft(game, position, depth) {
  const actions = game.legalActions(position);
  if (depth === 1) {
    return actions.length;
  }
  let total = 0;
  for (const action of actions) {
    total += perft(game, game.apply(position, action), depth - 1);
  }
  return total;
}

function cells(...names) {
  return names.reduce((bits, name) => bits | (1 << parseCell(name)), 0);
}

function assertOneLineError(run, pattern) {
  assert.throws(run, (error) => {
    assert.ok(error instanceof Error, 'an Error');
    assert.ok(!error.message.includes('\n'), `one line: ${JSON.stringify(error.message)}`);
    assert.match(error.message, pattern);
    return true;
  });
}

describe('rules', () => {
  const game = new Heraldis();

  test('perft from the start matches the rules', () => {
    const start = Position.start();
    assert.deepEqual(
      [1, 2, 3, 4].map((depth) => perft(game, start, depth)),
      [15, 360, 8280, 182160],
    );
  });

  test('the documented capture lines reach their positions and perft counts', () => {
    const cases = [
      [
        'd5 e3 b1 b5 c5 d4 a5 xb1 a3 d1 b2 c3 c2 xd5',
        'LDLD1/3D1/L1D1D/1LL2/1D1D1 l d5 14',
        [14, 173, 2184, 22778],
      ],
      [
        'd2 a5 e3 b3 b2 e1 xb3 b5 d5 a3 d1 d4 c2 xd2',
        'DD1L1/3D1/DL2L/1LLD1/3LD l d2 14',
        [13, 174, 2022, 23394],
      ],
    ];
    for (const [moves, expected, counts] of cases) {
      let position = Position.start();
      for (const move of moves.split(' ')) {
        position = game.play(position, move);
      }
      assert.equal(String(position), expected);
      assert.deepEqual(
        counts.map((_, index) => perft(game, position, index + 1)),
        counts,
      );
    }
    const position = game.parsePosition('LDLD1/3D1/L1D1D/1LL2/1D1D1 l d5 14');
    assert.deepEqual(
      game.legalMoves(position),
      'a1 c1 e1 a2 d2 e2 b3 xc3 d3 a4 b4 c4 e4 e5'.split(' '),
    );
  });

  test('the First Oath allows only empty Alliances', () => {
    const start = Position.start();
    const moves = game.legalMoves(start);
    assert.equal(moves.length, 15);
    for (const move of moves) {
      assert.equal(game.layout.isHouse(parseCell(move)), false, move);
    }
  });

  test('an empty reserve can only pass', () => {
    // Light has its 13 pieces on the board, no four in a row, e1 free.
    const position = game.parsePosition('LLDLL/DDLDD/LLDLL/DDLDD/LLDL1 l - 26');
    assert.equal(position.reserve(0), 0);
    assert.deepEqual(game.legalMoves(position), ['pass']);
    const after = game.play(position, 'pass');
    assert.deepEqual(game.legalMoves(after), ['e1']);
  });

  test('a finished game has no moves and its exact result', () => {
    const won = game.parsePosition('5/1LLD1/D1L2/1LLD1/2LDD d - 11');
    assert.deepEqual(game.legalMoves(won), []);
    assert.deepEqual(game.result(won), { light: 1, draw: 0, dark: 0 });
    const limit = new Heraldis(DEFAULT_LAYOUT, 4);
    const late = limit.parsePosition('5/5/2L2/1DLD1/5 l - 4');
    assert.deepEqual(limit.result(late), { light: 0, draw: 1, dark: 0 });
    assert.deepEqual(limit.legalMoves(late), []);
  });

  test('the Truce forbids the retake for one turn only', () => {
    // Dark has just taken a2 (Ours+Aigle) from Light; Light holds the Ours
    // House c4 and the Aigle House a5, so only the Truce stands in the way.
    const position = game.parsePosition('L4/2L2/5/D1D2/4D l a2 6');
    assert.equal(game.capturableBy(position, 0) & cells('a2'), 0);
    assert.throws(() => game.play(position, 'xa2'), /illegal move/);
    // One move each later, the retake is legal again.
    const later = game.play(game.play(position, 'b3'), 'd3');
    assert.equal(String(later), 'L4/2L2/1L1D1/D1D2/4D l - 8');
    assert.notEqual(game.capturableBy(later, 0) & cells('a2'), 0);
    assert.equal(String(game.play(later, 'xa2')), 'L4/2L2/1L1D1/L1D2/4D d a2 9');
  });

  test('positions and layouts round-trip through their notation', () => {
    for (const text of ['5/5/5/5/5 l - 0', 'DD1L1/3D1/DL2L/1LLD1/3LD l d2 14']) {
      assert.equal(String(game.parsePosition(text)), text);
    }
    assert.equal(String(Layout.parse(DEFAULT_LAYOUT)), DEFAULT_LAYOUT);
    assert.equal(String(Layout.parse(DEFAULT_LAYOUT.replace('OS', 'SO'))), DEFAULT_LAYOUT);
  });

  test('completing cells are exactly the cells that make a line', () => {
    let state = 0x2545f491;
    for (let round = 0; round < 2000; round += 1) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      const pieces = state & (state >>> 7) & ((1 << CELLS) - 1);
      const completing = completingCells(pieces);
      for (let cell = 0; cell < CELLS; cell += 1) {
        if (!hasFourInRow(pieces & ~(1 << cell))) {
          assert.equal(((completing >>> cell) & 1) === 1, hasFourInRow(pieces | (1 << cell)));
        }
      }
    }
  });

  test('the encoding marks wins now and the opponent threats', () => {
    const planes = game.encode(game.parsePosition('4D/5/5/LLL2/DD3 l - 6'));
    assert.equal(planes.length, PLANE_COUNT * CELLS);
    const marked = (plane) =>
      [...planes.subarray(plane * CELLS, (plane + 1) * CELLS)]
        .map((value, cell) => (value === 1 ? cell : -1))
        .filter((cell) => cell >= 0);
    assert.deepEqual(marked(11), [parseCell('d2')]);
    assert.deepEqual(marked(13), [parseCell('d2')]);
    assert.deepEqual(marked(12), []);
    assert.equal(planes[29 * CELLS], 1);
    assert.equal(planes[25 * CELLS], Math.fround(10 / 13));
    assert.equal(planes[28 * CELLS], Math.fround(144 / 150));
  });

  test('calibration curves interpolate, stay flat beyond their ends and renormalise', () => {
    const knots = [
      [0.2, 0.1],
      [0.6, 0.5],
      [0.8, 0.9],
    ];
    assert.equal(curveAt(knots, 0), 0.1);
    assert.ok(Math.abs(curveAt(knots, 0.4) - 0.3) < 1e-12);
    assert.equal(curveAt(knots, 1), 0.9);
    assert.equal(curveAt([], 0.37), 0.37);
    const shown = applyCurves([0.5, 0.0, 0.5], [knots, [], [[0, 0.2], [1, 0.2]]]);
    assert.ok(Math.abs(shown.reduce((a, b) => a + b) - 1) < 1e-12);
    assert.ok(Math.abs(shown[0] / shown[2] - 0.4 / 0.2) < 1e-12);
  });

  test('temperature scaling keeps the order and sums to one', () => {
    const scaled = scaleByTemperature([0.7, 0.2, 0.1], 2);
    assert.ok(Math.abs(scaled.reduce((a, b) => a + b) - 1) < 1e-12);
    assert.ok(scaled[0] > scaled[1] && scaled[1] > scaled[2]);
    assert.ok(scaled[0] < 0.7);
  });
});

describe('bad input', () => {
  const game = new Heraldis();

  test('malformed positions throw a one-line error', () => {
    const cases = [
      ['', /expected 4 fields/],
      ['5/5/5/5/5 l -', /expected 4 fields/],
      ['5/5/5/5 l - 0', /expected 5 ranks/],
      ['5/5/5/5/6 l - 0', /bad character '6' in rank 1/],
      ['5/5/5/5/X4 l - 0', /bad character 'X'/],
      ['5/5/5/5/4LL l - 2', /rank 1 has more than 5 cells/],
      ['5/5/5/5/4 l - 0', /rank 1 has 4 cells, expected 5/],
      ['5/5/5/5/5 x - 0', /bad side 'x'/],
      ['5/5/5/5/5 l z9 0', /bad truce 'z9'/],
      ['5/5/5/5/5 l - -1', /bad ply '-1'/],
      ['5/5/5/5/5 l - one', /bad ply 'one'/],
      ['5/5/5/5/5 d - 0', /side 'd' cannot move at ply 0/],
      ['5/5/5/5/5 l - 152', /beyond the limit of 150 plies/],
      ['LL3/5/5/5/5 d - 1', /Light has 2 pieces after only 1 of its turns/],
      ['LLLL1/DDDD1/5/5/5 l - 8', /the side to move already has four in a row/],
      ['5/5/5/5/5 l c3 2', /truce cell c3 does not hold a piece/],
      ['D4/5/5/5/5 l a5 2', /truce cell a5 is a House/],
      ['5/5/5/5/5\nl - 0 extra', /expected 4 fields/],
    ];
    for (const [text, pattern] of cases) {
      assertOneLineError(() => game.parsePosition(text), pattern);
      assertOneLineError(() => game.parsePosition(text), /^invalid position '/);
    }
    assertOneLineError(() => game.parsePosition(42), /^invalid position/);
  });

  test('malformed layouts throw a one-line error', () => {
    const cases = [
      ['A S OS CS AC / LS LA O C OA', /expected 5 ranks/],
      [DEFAULT_LAYOUT.replace('A S OS CS AC', 'A S OS CS'), /rank 5 has 4 cells/],
      [DEFAULT_LAYOUT.replace('A S OS CS AC', 'A S OS CS AX'), /bad cell 'AX'/],
      [DEFAULT_LAYOUT.replace('A S OS CS AC', 'A S OS CS AA'), /Alliance AA needs two distinct symbols/],
      [DEFAULT_LAYOUT.replace('A S OS CS AC', 'A S OS CS A'), /expected exactly 10 Houses, found 11/],
      [DEFAULT_LAYOUT.replace(/ S A$/, ' S L'), /symbol L is on 3 Houses/],
    ];
    for (const [text, pattern] of cases) {
      assertOneLineError(() => Layout.parse(text), pattern);
    }
  });

  test('illegal or malformed moves throw a one-line error', () => {
    const start = Position.start();
    assertOneLineError(() => game.play(start, 'a5'), /^invalid move 'a5': illegal move$/);
    assertOneLineError(() => game.play(start, 'f1'), /expected a cell a1-e5/);
    assertOneLineError(() => game.play(start, 'xc3'), /a capture needs an opponent piece/);
    assertOneLineError(() => game.play(start, 'pass'), /illegal move/);
  });
});

describe(`the export at ${exportDir}`, () => {
  let description;
  let model;
  let session;
  let grandMaitre;

  before(async () => {
    const json = path.join(exportDir, 'model.json');
    if (!existsSync(json)) {
      throw new Error(
        `no export at ${exportDir}: run 'grandmaitre export --model checkpoints/heraldis --out DIR' and set GM_EXPORT=DIR`,
      );
    }
    description = JSON.parse(readFileSync(json, 'utf8'));
    model = readFileSync(path.join(exportDir, 'model.onnx'));
    session = await ort.InferenceSession.create(model);
    grandMaitre = await GrandMaitre.load(ort, { model, description, book: bookOf(description) });
  });

  test('describes the game, layout, ply limit and encoding this module speaks', () => {
    assert.equal(description.game, 'heraldis');
    assert.equal(typeof description.layout, 'string');
    assert.equal(String(Layout.parse(description.layout)), String(grandMaitre.game.layout));
    assert.equal(description.ply_limit, grandMaitre.game.plyLimit);
    const version = description.encoding?.version ?? description.encoding_version;
    assert.equal(version, ENCODING_VERSION);
    assert.ok(Array.isArray(description.test_vectors) && description.test_vectors.length > 0);
  });

  test('the JS encoding equals the engine planes exactly', () => {
    for (const vector of description.test_vectors) {
      const position = grandMaitre.game.parsePosition(vector.position);
      const planes = grandMaitre.game.encode(position);
      assert.equal(vector.planes.length, PLANE_COUNT * CELLS, vector.position);
      for (let index = 0; index < planes.length; index += 1) {
        const expected = Math.fround(vector.planes[index]);
        if (planes[index] !== expected) {
          const plane = Math.floor(index / CELLS);
          assert.fail(
            `${vector.position}: plane ${plane} cell ${index % CELLS}: JS ${planes[index]}, engine ${expected}`,
          );
        }
      }
    }
  });

  test('the JS legal moves equal the engine legal moves', () => {
    for (const vector of description.test_vectors) {
      const position = grandMaitre.game.parsePosition(vector.position);
      const moves = grandMaitre.game.legalMoves(position);
      assert.deepEqual([...moves].sort(), [...vector.legal_moves].sort(), vector.position);
    }
  });

  test('onnxruntime-node gives the engine logits on the engine planes', async () => {
    const vectors = description.test_vectors;
    const size = PLANE_COUNT * CELLS;
    const planes = new Float32Array(vectors.length * size);
    vectors.forEach((vector, index) => planes.set(vector.planes, index * size));
    const outputs = await session.run({
      planes: new ort.Tensor('float32', planes, [vectors.length, PLANE_COUNT, 5, 5]),
    });
    assert.deepEqual(outputs.policy_logits.dims, [vectors.length, ACTION_COUNT]);
    assert.deepEqual(outputs.wdl_logits.dims, [vectors.length, 3]);
    vectors.forEach((vector, index) => {
      assertClose(
        outputs.policy_logits.data.subarray(index * ACTION_COUNT, (index + 1) * ACTION_COUNT),
        vector.policy_logits,
        `${vector.position} policy`,
      );
      assertClose(
        outputs.wdl_logits.data.subarray(index * 3, (index + 1) * 3),
        vector.wdl_logits,
        `${vector.position} wdl`,
      );
    });
  });

  test('the JS-encoded positions give the engine logits one by one', async () => {
    for (const vector of description.test_vectors) {
      const [{ policyLogits, wdlLogits }] = await grandMaitre.logits([vector.position]);
      assertClose(policyLogits, vector.policy_logits, `${vector.position} policy`);
      assertClose(wdlLogits, vector.wdl_logits, `${vector.position} wdl`);
    }
  });

  test('the network reading gives the engine network bar and best move', async () => {
    for (const vector of description.test_vectors) {
      const result = await grandMaitre.networkReading(vector.position);
      assertClose(
        [result.light, result.draw, result.dark],
        [vector.bar.light, vector.bar.draw, vector.bar.dark],
        `${vector.position} bar`,
      );
      assert.ok(Math.abs(result.light + result.draw + result.dark - 1) < 1e-9);
      assert.equal(result.move, vector.best_move ?? null, `${vector.position} best move`);
      assert.deepEqual([...result.legalMoves].sort(), [...vector.legal_moves].sort());
    }
  });

  test('a batch reads as the positions one by one', async () => {
    const texts = description.test_vectors.map((vector) => vector.position);
    const batch = await grandMaitre.networkReadings(texts);
    for (const [index, text] of texts.entries()) {
      const single = await grandMaitre.networkReading(text);
      assertClose(
        [batch[index].light, batch[index].draw, batch[index].dark],
        [single.light, single.draw, single.dark],
        text,
      );
      assert.equal(batch[index].move, single.move);
    }
  });

  test('a finished game gives its exact result without a move', async () => {
    const finished = '5/1LLD1/D1L2/1LLD1/2LDD d - 11';
    const result = await grandMaitre.networkReading(finished);
    assert.deepEqual(result, { light: 1, draw: 0, dark: 0, move: null, legalMoves: [] });
    assert.deepEqual(await grandMaitre.bar(finished), {
      light: 1,
      draw: 0,
      dark: 0,
      exact: true,
      proven: 'light',
      seated: grandMaitre.seatedModel !== null,
      players: 'light=10 dark=10',
      beliefs: {},
    });
    await assert.rejects(grandMaitre.advise(finished), /^Error: no move to choose: the game is over/);
  });

  test('a malformed calibration curve is refused with a one-line error', async () => {
    const identity = { knots: [] };
    const bad = structuredClone(description);
    bad.calibration = {
      network_temperature: 1,
      network_curves: [
        [{ knots: [[0.5, 0.9], [0.6, 0.2]] }, identity, identity],
        [identity, identity, identity],
      ],
    };
    await assert.rejects(GrandMaitre.load(ort, { model, description: bad, book: bookOf(bad) }), (error) => {
      assert.match(error.message, /^invalid model description: calibration\.network_curves\[0\]\[0\] must be/);
      assert.ok(!error.message.includes('\n'));
      return true;
    });
  });

  test('every entry point rejects a malformed position with a one-line error', async () => {
    for (const run of [
      (p) => grandMaitre.networkReading(p),
      (p) => grandMaitre.bar(p),
      (p) => grandMaitre.advise(p),
      (p) => grandMaitre.search(p, { simulations: 8 }),
      (p) => grandMaitre.player({ level: 3 }).select(p),
    ]) {
      await assert.rejects(run('5/5/5/5 l - 0'), (error) => {
        assert.match(error.message, /^invalid position '5\/5\/5\/5 l - 0': expected 5 ranks/);
        assert.ok(!error.message.includes('\n'));
        return true;
      });
    }
  });
});

describe('the search against the engine', () => {
  let description;
  let grandMaitre;
  let vectors;

  before(async () => {
    description = JSON.parse(readFileSync(path.join(exportDir, 'model.json'), 'utf8'));
    vectors = description.search_vectors;
    grandMaitre = await GrandMaitre.load(ort, {
      model: readFileSync(path.join(exportDir, 'model.onnx')),
      description,
      book: bookOf(description),
    });
  });

  test('the levels are those model.json gives, and a description without them is refused', async () => {
    const given = description.search.levels;
    assert.equal(grandMaitre.levels.length, given.length);
    for (const [index, expected] of given.entries()) {
      const ours = grandMaitre.levels[index];
      assert.equal(ours.number, expected.number);
      assert.equal(ours.simulations, expected.simulations);
      assert.equal(ours.temperature, Math.fround(expected.temperature));
      assert.equal(ours.noise, expected.noise);
    }
    assert.equal(grandMaitre.level(description.search.advice_level).simulations, given.at(-1).simulations);
    assert.throws(() => grandMaitre.level(11), /level must be between 1 and 10, found 11/);
    const model = readFileSync(path.join(exportDir, 'model.onnx'));
    const { search: _, ...without } = description;
    await assert.rejects(GrandMaitre.load(ort, { model, description: without }), /invalid model description: search\.is missing/);
    const edited = { ...description, search: { ...description.search, c_puct: -1 } };
    await assert.rejects(GrandMaitre.load(ort, { model, description: edited }), /search\.c_puct must be a number in range/);
    // Heraldis's levels search with the network alone; a game whose levels
    // add tactics this runtime does not have is refused, not played weaker.
    assert.ok(description.search.tactics === null || description.search.tactics === undefined);
    const tactical = { ...description, search: { ...description.search, tactics: { leaf_depth: 2 } } };
    await assert.rejects(GrandMaitre.load(ort, { model, description: tactical }), /search\.tactics: this search has none/);
  });

  test('with the uniform evaluator: the engine visits exactly', async () => {
    const third = Math.fround(1 / 3);
    const uniform = async (positions) =>
      positions.map(() => ({ policyLogits: new Float32Array(ACTION_COUNT), wdl: [third, third, third] }));
    assert.ok(vectors.uniform.length >= 6);
    for (const vector of vectors.uniform) {
      const result = await grandMaitre.search(vector.position, {
        simulations: vector.simulations,
        evaluator: uniform,
      });
      assertSameSearch(result, vector, 0);
    }
  });

  test('with the engine network outputs replayed: the engine batches and visits exactly', async () => {
    const { searches, batches } = vectors.recorded;
    assert.ok(searches.length > 0 && searches.length === batches.length);
    for (const [index, vector] of searches.entries()) {
      const recorded = batches[index];
      let next = 0;
      const replay = async (positions) => {
        const batch = recorded[next];
        next += 1;
        assert.ok(batch, `${vector.position}: batch ${next} was not asked for by the engine`);
        assert.deepEqual(
          positions.map(String),
          batch.map((entry) => entry.position),
          `${vector.position}: batch ${next}`,
        );
        return batch.map((entry) => ({
          policyLogits: legalLogits(entry.legal_logits, ACTION_COUNT),
          wdl: entry.wdl.map(Math.fround),
        }));
      };
      const result = await grandMaitre.search(vector.position, {
        simulations: vector.simulations,
        evaluator: replay,
      });
      assert.equal(next, recorded.length, `${vector.position}: every engine batch asked for`);
      assertSameSearch(result, vector, 0);
      assert.deepEqual(result.wdl, vector.wdl.map(Math.fround));
    }
  });

  test('with onnxruntime: the engine visits and move, within the float tolerance', async () => {
    for (const vector of vectors.network) {
      const result = await grandMaitre.search(vector.position, { simulations: vector.simulations });
      assertSameSearch(result, vector, SEARCH_TOLERANCE * vector.simulations);
    }
  });

  test('the bar is the engine bar', async () => {
    for (const expected of vectors.bar) {
      const bar = await grandMaitre.bar(expected.position);
      assertClose([bar.light, bar.draw, bar.dark], [expected.light, expected.draw, expected.dark], expected.position);
      assert.ok(Math.abs(bar.light + bar.draw + bar.dark - 1) < 1e-6);
      if (expected.proven !== undefined) {
        assert.equal(bar.proven, expected.proven?.replace(' wins', '') ?? null, expected.position);
      }
    }
  });

  test('the bar for who plays is the engine bar for the same players', async (t) => {
    const seated = vectors.bar.filter((v) => v.seated_bars?.some((bar) => bar.seated));
    if (seated.length === 0) {
      t.skip('the export has no bar for who plays');
      return;
    }
    const seatOf = (text) => (text === 'human' ? 'human' : Number(text));
    let differ = 0;
    for (const expected of seated) {
      const bars = [];
      for (const vector of expected.seated_bars) {
        const players = Object.fromEntries(vector.players.split(' ').map((item) => item.split('=')).map(([k, v]) => [k, seatOf(v)]));
        const bar = await grandMaitre.bar(expected.position, { players });
        const label = `${expected.position} ${vector.players}`;
        assertClose([bar.light, bar.draw, bar.dark], [vector.light, vector.draw, vector.dark], label);
        assert.equal(bar.players, vector.players, label);
        assert.equal(bar.seated, true, label);
        bars.push(bar.light);
      }
      // Who plays changes the bar.
      if (new Set(bars).size > 1) {
        differ += 1;
      }
    }
    assert.ok(differ > 0, 'some position whose bar depends on who plays');
    await assert.rejects(grandMaitre.bar(seated[0].position, { players: { white: 3 } }), /^Error: invalid players: 'white' is not a side/);
    await assert.rejects(grandMaitre.bar(seated[0].position, { players: { light: 11 } }), /^Error: invalid players: light must be a level 1-10/);
  });

  test('the bar reads a person by their moves as the engine does', async (t) => {
    const histories = vectors.history_bars ?? [];
    if (!histories.some((h) => h.bars.some((bar) => bar.beliefs.some((b) => b !== null)))) {
      t.skip('the export has no bar that reads moves');
      return;
    }
    const seatOf = (text) => (text === 'human' ? 'human' : Number(text));
    let moved = 0;
    for (const expected of histories) {
      for (const vector of expected.bars) {
        const players = Object.fromEntries(vector.players.split(' ').map((item) => item.split('=')).map(([k, v]) => [k, seatOf(v)]));
        const bar = await grandMaitre.bar(expected.position, { players, history: expected.history });
        const label = `${expected.position} ${vector.players}`;
        assertClose([bar.light, bar.draw, bar.dark], [vector.light, vector.draw, vector.dark], label);
        vector.beliefs.forEach((belief, side) => {
          const name = ['light', 'dark'][side];
          if (belief === null) {
            assert.equal(bar.beliefs[name], undefined, label);
            return;
          }
          const weights = bar.beliefs[name].levels.map(([, w]) => w);
          assertClose(weights, belief.map(([, w]) => w), `${label} ${name}'s belief`);
          if (Math.max(...weights) > 0.2) {
            moved += 1;
          }
        });
        // Without the history, a person is every level alike.
        const prior = await grandMaitre.bar(expected.position, { players });
        for (const belief of Object.values(prior.beliefs)) {
          assert.ok(belief.levels.every(([, w]) => Math.abs(w - 1 / belief.levels.length) < 1e-12), label);
        }
      }
    }
    assert.ok(moved > 0, 'some belief that the moves moved');
    const [first] = histories;
    await assert.rejects(grandMaitre.bar(first.position, { players: { light: 'human' }, history: 'c3' }), /^Error: invalid history: expected a list/);
    await assert.rejects(
      grandMaitre.bar(first.position, { players: { light: 'human' }, history: [{ position: first.history[0].position, move: 'z9' }] }),
      /^Error: invalid history: entry 1: /,
    );
  });

  test('where the solution book proves a win: the engine bar and move, exactly', async (t) => {
    if (!description.book) {
      t.skip('the export has no solution book');
      return;
    }
    const booked = vectors.book;
    assert.ok(booked.length >= 4, 'the root, its reply, positions and their images');
    assert.equal(booked[0].position, description.book.root);
    let proven = 0;
    for (const expected of booked) {
      const bar = await grandMaitre.bar(expected.position);
      const engine = [expected.light, expected.draw, expected.dark];
      if (bar.book && !bar.seated) {
        assert.deepEqual([bar.light, bar.draw, bar.dark], engine, expected.position);
      } else {
        assertClose([bar.light, bar.draw, bar.dark], engine, expected.position);
      }
      assert.equal(grandMaitre.bookMove(expected.position), expected.book_move, expected.position);
      if (bar.book) {
        proven += 1;
        // The engine flags the proof (an export with a bar for who plays),
        // or shows it as certain (one without).
        const flagged = expected.proven !== undefined && expected.proven !== null;
        assert.ok(flagged || [expected.light, expected.dark].includes(1), `${expected.position}: the engine bar knows the proof`);
        assert.notEqual(bar.proven, null, expected.position);
      }
      if (expected.book_move !== null) {
        // The levels that play their best play it, without a search; the
        // gentler ones do not.
        const best = await grandMaitre.player({ level: 10 }).select(expected.position);
        assert.equal(best.move, expected.book_move);
        assert.equal(best.fromBook, true);
        const gentle = await grandMaitre.player({ level: 5, seed: 1 }).select(expected.position);
        assert.equal(gentle.fromBook, false);
      }
    }
    assert.ok(proven >= booked.length - 1, `${proven} of ${booked.length} proven: all but the one off the book`);
    const advice = await grandMaitre.advise(booked[0].position);
    assert.equal(advice.move, booked[0].book_move);
    assert.equal(advice.fromBook, true);
    assert.equal(advice.principalVariation[0], advice.move);
  });

  test('a description naming a solution book needs its text', async (t) => {
    if (!description.book) {
      t.skip('the export has no solution book');
      return;
    }
    const model = readFileSync(path.join(exportDir, 'model.onnx'));
    await assert.rejects(GrandMaitre.load(ort, { model, description }), (error) => {
      assert.match(error.message, /^invalid model description: it names the solution book book\.txt/);
      assert.ok(!error.message.includes('\n'));
      return true;
    });
  });

  test('a solution book is used only where it is a proof under the rules in force', async (t) => {
    if (!description.book) {
      t.skip('the export has no solution book');
      return;
    }
    assert.equal(grandMaitre.bookRefused, null);
    assert.equal(grandMaitre.book.moves.size, description.book.positions);
    const root = description.book.root;
    assert.notEqual(grandMaitre.bookMove(root), null);
    // Under 12 plies the start is a draw: the proof's lines run to 13. An
    // edited ply limit must not show an exact bar.
    const model = readFileSync(path.join(exportDir, 'model.onnx'));
    const short = { ...description, ply_limit: 12 };
    const edited = await GrandMaitre.load(ort, { model, description: short, book: bookOf(description) });
    assert.match(edited.bookRefused, /^invalid book: .*: the game ends without light's win$/);
    assert.equal(edited.bookMove(root), null);
    const bar = await edited.bar(root);
    assert.ok(!bar.book, 'no proof from a book that is not one');
    // A line no replay reaches (a Light position after a1, off the proof)
    // is dropped, not trusted.
    const start = grandMaitre.game.parsePosition(root);
    const off = grandMaitre.game.applyLegal(start, grandMaitre.game.parseAction(start, 'a1'));
    const stray = grandMaitre.game.applyLegal(off, grandMaitre.game.legalActions(off)[0]);
    const move = grandMaitre.game.formatAction(stray, grandMaitre.game.legalActions(stray)[0]);
    const padded = `${bookOf(description)}${stray}\t${move}\n`;
    const strayed = await GrandMaitre.load(ort, { model, description, book: padded });
    assert.equal(strayed.bookRefused, null);
    assert.equal(strayed.bookMove(String(stray)), null);
  });

  test('the advice is the level 10 search and its move', async () => {
    // Off the solution book, if the export has one (there the book's move
    // is the advice: see below).
    const start = vectors.book?.find((v) => v.book_move === null)?.position ?? Position.start();
    const advice = await grandMaitre.advise(start);
    const search = await grandMaitre.search(start, { simulations: grandMaitre.level(description.search.advice_level).simulations });
    assert.equal(advice.fromBook, false);
    assert.equal(advice.move, search.move);
    assert.deepEqual(
      advice.children.map((c) => [c.move, c.visits]),
      search.children.map((c) => [c.move, c.visits]),
    );
    assert.equal(advice.visits, grandMaitre.level(description.search.advice_level).simulations);
    assert.equal(advice.principalVariation[0], advice.children[0].move);
  });

  test('the solver and the guard prove what the engine proves, position for position', () => {
    const guardVectors = vectors.guard;
    assert.ok(guardVectors.positions.length >= 6);
    assert.equal(guardVectors.nodes, description.search.guard_nodes);
    const game = grandMaitre.game;
    let overruled = 0;
    for (const vector of guardVectors.positions) {
      const position = game.parsePosition(vector.position);
      const report = new Solver(game).solve(position, guardVectors.nodes);
      assert.equal(report.solution, vector.solution, vector.position);
      assert.equal(report.bestMove === null ? null : game.formatAction(position, report.bestMove), vector.best_move);
      assert.equal(report.nodes, vector.nodes, `${vector.position}: positions expanded`);
      const guard = new Guard(game, guardVectors.nodes);
      const actions = game.legalActions(position);
      for (const check of vector.checks) {
        const searched = game.parseAction(position, check.searched);
        const guarded = guard.check(
          position,
          searched,
          actions.filter((a) => a !== searched),
        );
        assert.equal(game.formatAction(position, guarded.action), check.move, `${vector.position} ${check.searched}`);
        assert.equal(guarded.proven, check.proven);
        assert.equal(guarded.overruled, check.overruled);
        overruled += guarded.overruled ? 1 : 0;
      }
    }
    assert.ok(overruled > 0, 'some searched moves are overruled');
  });

  test('at full strength the solver overrules a search that walks into a loss', async () => {
    // Level 10's search prefers b2 here, which loses in 5 plies; c2 wins.
    const trap = 'L4/D2D1/DL3/3L1/5 l - 6';
    const advice = await grandMaitre.advise(trap);
    assert.equal(advice.children[0].move, 'b2', 'the search\'s own choice');
    assert.equal(advice.move, 'c2');
    assert.equal(advice.solved, 'win');
    assert.equal(advice.solverOverruled, true);
    assert.deepEqual(advice.principalVariation, ['c2']);
    // A gentle level plays as its search and randomness say.
    const gentle = await grandMaitre.player({ level: 3, seed: 1 }).select(trap);
    assert.equal(gentle.solverOverruled, false);
    assert.equal(gentle.solved, null);
  });

  test('a player keeps its tree from move to move', async () => {
    const game = grandMaitre.game;
    // Without the book, which would answer from the start without a search.
    const player = grandMaitre.player({ level: 7, book: false });
    let position = Position.start();
    const first = await player.select(position);
    assert.equal(first.visits, 50);
    // The reply the search expected: its subtree was searched.
    const [move, reply] = first.principalVariation;
    player.observe(position, move);
    position = game.play(position, move);
    player.observe(position, reply);
    position = game.play(position, reply);
    const second = await player.select(position);
    assert.ok(second.visits > 50, `${second.visits} visits: the reply's subtree was kept`);
    // A position the player did not follow starts afresh.
    const other = await player.select(game.play(Position.start(), 'b4'));
    assert.equal(other.visits, 50);
  });

  test('a level with randomness is reproducible from its seed', async () => {
    const game = grandMaitre.game;
    const play = async (seed) => {
      const player = grandMaitre.player({ level: 1, seed });
      const moves = [];
      let position = Position.start();
      for (let ply = 0; ply < 8 && !game.isOver(position); ply += 1) {
        const { move } = await player.select(position);
        moves.push(move);
        player.observe(position, move);
        position = game.play(position, move);
      }
      return moves.join(' ');
    };
    assert.equal(await play(3), await play(3));
    const lines = new Set();
    for (const seed of [1, 2, 3, 4, 5]) {
      lines.add(await play(seed));
    }
    assert.ok(lines.size > 1, 'different seeds, different games at level 1 (85 % random moves)');
  });

  test('levels outside 1 to 10 are refused with a one-line error', () => {
    for (const bad of [0, 11, 2.5, '3']) {
      assertOneLineError(() => grandMaitre.player({ level: bad }), /^level must be between 1 and 10/);
    }
  });
});

/** How far the visits through onnxruntime may be from the engine's, per move, as a share of the simulations: see docs/embedding.md. */
const SEARCH_TOLERANCE = 0.02;

/** A search result against an engine vector: its move, and each move's visits within `slack`. */
function assertSameSearch(result, vector, slack) {
  const visits = Object.fromEntries(result.children.map((c) => [c.move, c.visits]));
  assert.deepEqual(Object.keys(visits).sort(), Object.keys(vector.visits).sort(), `${vector.position}: moves`);
  for (const [move, expected] of Object.entries(vector.visits)) {
    const gap = Math.abs(visits[move] - expected);
    assert.ok(
      gap <= slack,
      `${vector.position} at ${vector.simulations}: ${move} visited ${visits[move]} times, the engine ${expected}`,
    );
  }
  assert.equal(result.move, vector.move, `${vector.position} at ${vector.simulations}: move`);
  assert.equal(result.proof, vector.proof, `${vector.position}: proof`);
}

/** The engine records the logits of the legal moves only, as (action, logit). */
function legalLogits(pairs, count) {
  const logits = new Float32Array(count);
  for (const [action, logit] of pairs) logits[action] = logit;
  return logits;
}

function assertClose(actual, expected, label) {
  assert.equal(actual.length, expected.length, `${label}: length`);
  for (let index = 0; index < expected.length; index += 1) {
    const gap = Math.abs(actual[index] - expected[index]);
    if (!(gap <= TOLERANCE)) {
      assert.fail(`${label}[${index}]: ${actual[index]} vs ${expected[index]} (gap ${gap})`);
    }
  }
}
