// `GrandMaitre.load` under damaged model.json descriptions: values swapped
// for odd ones (huge, negative or fractional numbers, text with line
// breaks, null, arrays, objects with `toString` or `valueOf` members),
// members removed or added, then the network reading and the bar on the
// model that loads. Whatever the description: `load` resolves, or rejects
// with a plain Error of one line, never a TypeError from deep inside; a
// model that loads gives probabilities or a plain one-line Error.
//
//   GM_EXPORT=/path/to/export node --test test/description.test.mjs
//
// GM_EXPORT defaults to ../checkpoints/heraldis/export (relative to web/).
// No onnxruntime is needed: the network is a stand-in with fixed outputs.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { ACTION_COUNT, GrandMaitre } from '../heraldis.js';

const webDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const exportDir = process.env.GM_EXPORT
  ? path.resolve(process.env.GM_EXPORT)
  : path.resolve(webDir, '../checkpoints/heraldis/export');
const descriptionFile = path.join(exportDir, 'model.json');
// The solution book's text, when the export has one (the app fetches it
// beside model.json).
const bookFile = path.join(exportDir, 'book.txt');
const bookText = existsSync(bookFile) ? readFileSync(bookFile, 'utf8') : undefined;

/** Damaged descriptions tried; each is loaded, then evaluated if it loads. */
const CASES = 3000;

/** Characters that start a new line on a terminal or in a log. */
const LINE_BREAK = /[\n\r\v\f\u0085\u2028\u2029]/;

/** onnxruntime's two entry points, with a network of fixed outputs. */
const standInOrt = {
  Tensor: class {
    constructor(type, data, dims) {
      this.type = type;
      this.data = data;
      this.dims = dims;
    }
  },
  InferenceSession: {
    async create() {
      return {
        async run(feeds) {
          const [input] = Object.values(feeds);
          const batch = input.dims[0];
          const policy = new Float32Array(batch * ACTION_COUNT).map((_, i) => (i * 7) % 11);
          const wdl = new Float32Array(batch * 3).map((_, i) => [0.3, -1, 0.2][i % 3]);
          return { policy_logits: { data: policy }, wdl_logits: { data: wdl } };
        },
      };
    },
  },
};

/** A seeded generator (mulberry32): the same cases on every run. */
function generator(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const below = (n) => Math.floor(next() * n);
  const pick = (list) => list[below(list.length)];
  return { next, below, pick };
}

/** Objects whose conversion to a number or text throws a TypeError. */
function hostile(kind) {
  return JSON.parse(`{"${kind}": 5, "knots": []}`);
}

const ODD_VALUES = [
  () => 0,
  () => 1,
  () => -1,
  () => 2,
  () => 3,
  () => 150,
  () => 65536,
  () => 0.5,
  () => -0.0,
  () => 1e300,
  () => -1e300,
  () => 5e-324,
  () => 1e-300,
  () => 2 ** 53 + 2,
  () => '',
  () => '2',
  () => 'heraldis',
  () => 'havannah',
  () => 'a\nb',
  () => 'x\u2028y',
  () => '\r',
  () => 'A S OS CS AC / LS LA O C OA / L LC OC LC L / OA C O LA LS / AC CS OS S A',
  () => 'A S OS CS AC\n/ LS LA O C OA / L LC OC LC L / OA C O LA LS / AC CS OS S L',
  () => null,
  () => true,
  () => false,
  () => [],
  () => [[]],
  () => [0.5, 0.5],
  () => [[0.9, 0.1], [0.1, 0.9]],
  () => [[0, 0], [1, 1]],
  () => ({}),
  () => ({ knots: [] }),
  () => ({ knots: [[0.2, 0.3]] }),
  () => ({ knots: 'none' }),
  () => ({ version: 2 }),
  () => ({ notation: 7 }),
  () => ({ name: 'planes' }),
  () => hostile('toString'),
  () => hostile('valueOf'),
  () => hostile('toJSON'),
];

const MEMBER_NAMES = [
  'toString',
  'valueOf',
  'toJSON',
  '__proto__',
  'constructor',
  'game',
  'layout',
  'ply_limit',
  'encoding',
  'encoding_version',
  'version',
  'notation',
  'calibration',
  'network_temperature',
  'network_curves',
  'knots',
  'input',
  'name',
];

/** Every value of a document, depth first, with its container and key. */
function places(value, container = null, key = null, list = []) {
  list.push({ container, key, value });
  if (value !== null && typeof value === 'object') {
    for (const [childKey, child] of Object.entries(value)) {
      places(child, value, childKey, list);
    }
  }
  return list;
}

/** An own member, even named `__proto__` (as JSON.parse makes them). */
function setMember(object, key, value) {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The description after a few random edits. */
function damaged(original, random) {
  let document = structuredClone(original);
  const edits = 1 + random.below(3);
  for (let edit = 0; edit < edits; edit += 1) {
    // Half the edits at the top, where most of what `load` reads is.
    const spots = places(document);
    const top = spots.filter((spot) => spot.container === document);
    const { container, key, value } = random.pick(random.below(2) === 0 && top.length > 0 ? top : spots);
    const odd = random.pick(ODD_VALUES)();
    const kind = random.below(10);
    if (container === null) {
      if (kind === 0) {
        document = odd;
      }
    } else if (kind < 6) {
      setMember(container, key, odd);
    } else if (kind < 8) {
      if (Array.isArray(container)) {
        container.splice(Number(key), 1);
      } else {
        delete container[key];
      }
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      setMember(value, random.pick(MEMBER_NAMES), odd);
    } else {
      setMember(container, key, odd);
    }
  }
  // Through text, as a file would be.
  return JSON.parse(JSON.stringify(document) ?? 'null');
}

/** Fails unless `error` is a plain Error with a one-line message. */
function assertPlainOneLineError(error, label) {
  assert.ok(error instanceof Error, `${label}: not an Error: ${String(error)}`);
  assert.equal(
    error.constructor,
    Error,
    `${label}: ${error.constructor.name} from inside: ${error.stack}`,
  );
  assert.ok(error.message.length > 0, `${label}: empty message`);
  assert.ok(!LINE_BREAK.test(error.message), `${label}: not one line: ${JSON.stringify(error.message)}`);
}

async function check(description, label) {
  let maitre;
  try {
    maitre = await GrandMaitre.load(standInOrt, { model: new Uint8Array(0), description, book: bookText });
  } catch (error) {
    assertPlainOneLineError(error, label);
    return 'refused';
  }
  for (const position of ['5/5/5/5/5 l - 0', 'LDLD1/3D1/L1D1D/1LL2/1D1D1 l d5 14']) {
    for (const [what, read] of [
      ['reading', () => maitre.networkReading(position)],
      ['the bar of', () => maitre.bar(position)],
    ]) {
      let result;
      try {
        result = await read();
      } catch (error) {
        assertPlainOneLineError(error, `${label}, ${what} ${position}`);
        continue;
      }
      const { light, draw, dark, move } = result;
      for (const p of [light, draw, dark]) {
        assert.ok(Number.isFinite(p) && p >= 0 && p <= 1, `${label}: probability ${p}`);
      }
      assert.ok(Math.abs(light + draw + dark - 1) < 1e-6, `${label}: ${light} + ${draw} + ${dark}`);
      assert.ok(move === undefined || move === null || typeof move === 'string', `${label}: move ${move}`);
    }
  }
  return 'loaded';
}

describe(`damaged descriptions of ${descriptionFile}`, { skip: !existsSync(descriptionFile) }, () => {
  // The test vectors (most of the file) are for the tests of the export,
  // not for `load`: one is kept.
  const original = existsSync(descriptionFile) ? JSON.parse(readFileSync(descriptionFile, 'utf8')) : {};
  original.test_vectors = original.test_vectors?.slice(0, 1).map(({ position, legal_moves }) => ({ position, legal_moves }));
  delete original.search_vectors;

  test('the description loads as it is', async () => {
    assert.equal(await check(original, 'the original'), 'loaded');
  });

  test(`${CASES} damaged descriptions load or are refused with one line`, async () => {
    const random = generator(20260101);
    const outcomes = { loaded: 0, refused: 0 };
    for (let index = 0; index < CASES; index += 1) {
      const description = damaged(original, random);
      const outcome = await check(description, `case ${index} ${JSON.stringify(description).slice(0, 300)}`);
      outcomes[outcome] += 1;
    }
    // Both happen: the damage is neither always fatal nor always harmless.
    assert.ok(outcomes.loaded > CASES / 20 && outcomes.refused > CASES / 20, JSON.stringify(outcomes));
  });

  test('the damage found once is refused with one line', async () => {
    // A line separator in the layout passed into the message; an object
    // with a `toString` member as the ply limit threw a TypeError when
    // shown in the message, and as the input name when the network ran.
    const cases = [
      { layout: 'x\u2028y' },
      { ply_limit: hostile('toString') },
      { encoding: { version: hostile('valueOf') } },
      { calibration: { network_temperature: hostile('valueOf') } },
      { input: { name: hostile('toString') } },
    ];
    for (const change of cases) {
      const description = { ...original, ...change };
      assert.equal(await check(description, JSON.stringify(change)), 'refused');
    }
  });

  test("a bar fitted from the search's log-odds is the bar with the log_odds weight shifted by one", async (t) => {
    const players = original.calibration?.players;
    if (!players) {
      t.skip('the model has no bar for who plays');
      return;
    }
    // Where search_ridge is given, the second player's logit adds the
    // search's ln P(second) - ln P(first), which is minus the log_odds
    // feature: the same model as one without it whose log_odds weight of
    // that logit is one less.
    const logOdds = players.features.indexOf('log_odds');
    const withRidge = (shift) => {
      const description = structuredClone(original);
      description.calibration.players.search_ridge = 100;
      description.calibration.players.weights[1][logOdds] += shift;
      return GrandMaitre.load(standInOrt, { model: new Uint8Array(0), description, book: bookText });
    };
    const plain = await GrandMaitre.load(standInOrt, { model: new Uint8Array(0), description: original, book: bookText });
    const [shifted, unshifted] = await Promise.all([withRidge(1), withRidge(0)]);
    let differing = 0;
    for (const position of ['3L1/5/5/1D3/DL1DL l - 6', '5/5/L2LL/D4/2D2 d - 5', 'LDLD1/3D1/L1D1D/1LL2/1D1D1 l d5 14']) {
      for (const players of [{ light: 10, dark: 10 }, { light: 3, dark: 8 }, { light: 'human', dark: 6 }]) {
        const expected = await plain.bar(position, { players });
        const said = await shifted.bar(position, { players });
        assert.equal(said.seated, true);
        for (const outcome of ['light', 'draw', 'dark']) {
          assert.ok(Math.abs(said[outcome] - expected[outcome]) < 1e-12, `${position} ${JSON.stringify(players)} ${outcome}: ${said[outcome]} for ${expected[outcome]}`);
        }
        const other = await unshifted.bar(position, { players });
        differing += Math.abs(other.light - expected.light) > 1e-6 ? 1 : 0;
      }
    }
    // The search's log-odds are read: without the shift the bar moves.
    assert.ok(differing > 0);
  });

  test('descriptions that are not objects are refused with one line', async () => {
    for (const description of [undefined, null, 0, 'model.json', true]) {
      assert.equal(await check(description, String(description)), 'refused');
    }
  });
});
