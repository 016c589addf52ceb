// The game screen in headless Chromium (onnxruntime-web, wasm, one thread),
// served as the one folder of static files that `scripts/web-app.sh`
// assembles, with every request outside it refused (the app runs offline):
// the module reproduces the engine's search vectors in the page; the bar,
// « Conseil », a whole game against level 3 checked move by move against
// the rules, two players with undo, the keyboard, and a bad `?position=`.
//
//   GM_APP=/path/to/app node --test test/browser.test.mjs
//
// GM_APP defaults to an app assembled from ../checkpoints/heraldis/export
// into a temporary folder. Screenshots go to GM_ARTIFACTS (default: a
// temporary folder, named on stderr). Chromium is Debian's (/usr/bin/chromium;
// `apt-get install chromium`).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { chromium } from 'playwright-core';

import { GrandMaitre, LIGHT, Position, cellName } from '../heraldis.js';

const webDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const repository = path.dirname(webDir);
const CHROMIUM = '/usr/bin/chromium';
const TOLERANCE = 1e-4;
const START = '5/5/5/5/5 l - 0';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
};

/** Serves the folder `root` at `/` on 127.0.0.1. */
function startServer(root) {
  const server = createServer(async (request, response) => {
    try {
      let pathname = decodeURIComponent(new URL(request.url, 'http://127.0.0.1').pathname);
      if (pathname.endsWith('/')) {
        pathname += 'index.html';
      }
      const file = path.resolve(root, `.${pathname}`);
      if (!file.startsWith(root + path.sep)) {
        response.writeHead(403).end();
        return;
      }
      const info = await stat(file).catch(() => null);
      if (!info || !info.isFile()) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      response.writeHead(200, {
        'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-store',
      });
      response.end(await readFile(file));
    } catch (error) {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

async function readBar(page) {
  return page.$eval('#bar', (bar) => ({
    light: Number(bar.dataset.light),
    draw: Number(bar.dataset.draw),
    dark: Number(bar.dataset.dark),
    proven: bar.dataset.proven,
    players: bar.dataset.players,
    position: bar.dataset.position,
  }));
}

function assertBar(actual, expected, label) {
  for (const key of ['light', 'draw', 'dark']) {
    const gap = Math.abs(actual[key] - expected[key]);
    assert.ok(gap <= TOLERANCE, `${label} ${key}: page ${actual[key]}, expected ${expected[key]}`);
  }
}

/** A search result against an engine vector (as in node.test.mjs). */
function assertSameSearch(result, vector, slack) {
  assert.deepEqual(Object.keys(result.visits).sort(), Object.keys(vector.visits).sort(), vector.position);
  for (const [move, expected] of Object.entries(vector.visits)) {
    const gap = Math.abs(result.visits[move] - expected);
    assert.ok(
      gap <= slack,
      `${vector.position} at ${vector.simulations}: ${move} visited ${result.visits[move]} times in Chromium, the engine ${expected}`,
    );
  }
  assert.equal(result.move, vector.move, `${vector.position} at ${vector.simulations}: move`);
}

/** A seeded generator of numbers in [0, 1) for the test's own moves. */
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

describe('the game screen in Chromium', { timeout: 600_000 }, () => {
  let appDir;
  let ownApp = null;
  let artifacts;
  let server;
  let origin;
  let context;
  let userDataDir;
  let description;
  let grandMaitre;
  const problems = [];

  /** A fresh page at `query`, loaded (or failed), with its problems recorded. */
  async function open(query = '') {
    const page = await context.newPage();
    await page.setViewportSize({ width: 620, height: 1150 });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') {
        problems.push(`console: ${message.text()}`);
      }
    });
    await page.goto(`${origin}/${query}`);
    await page.waitForFunction(
      () => ['ready', 'over', 'error'].includes(document.body.dataset.status),
      null,
      { timeout: 120_000 },
    );
    return page;
  }

  async function settled(page) {
    await page.waitForFunction(
      () =>
        ['ready', 'over', 'error'].includes(document.body.dataset.status) &&
        document.getElementById('bar').dataset.position === document.getElementById('board').dataset.position,
      null,
      { timeout: 120_000 },
    );
    const status = await page.$eval('body', (body) => body.dataset.status);
    if (status === 'error') {
      throw new Error(`the page failed: ${await page.$eval('#error', (e) => e.textContent)}`);
    }
    return status;
  }

  async function screenshot(page, name) {
    await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
  }

  before(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`no ${CHROMIUM}: install it with 'apt-get install -y chromium'`);
    }
    if (process.env.GM_APP) {
      appDir = path.resolve(process.env.GM_APP);
    } else {
      ownApp = mkdtempSync(path.join(os.tmpdir(), 'gm-app-'));
      appDir = path.join(ownApp, 'app');
      execFileSync(path.join(repository, 'scripts/web-app.sh'), [appDir], { stdio: 'inherit' });
    }
    artifacts = process.env.GM_ARTIFACTS
      ? path.resolve(process.env.GM_ARTIFACTS)
      : mkdtempSync(path.join(os.tmpdir(), 'gm-screens-'));
    mkdirSync(artifacts, { recursive: true });
    process.stderr.write(`screenshots in ${artifacts}\n`);
    description = JSON.parse(readFileSync(path.join(appDir, 'model.json'), 'utf8'));
    const bookFile = description.files?.book;
    grandMaitre = await GrandMaitre.load(ort, {
      model: readFileSync(path.join(appDir, 'model.onnx')),
      description,
      book: bookFile ? readFileSync(path.join(appDir, bookFile), 'utf8') : undefined,
    });
    server = await startServer(appDir);
    origin = `http://127.0.0.1:${server.address().port}`;
    userDataDir = mkdtempSync(path.join(os.tmpdir(), 'gm-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    // Offline: nothing outside the app's folder is fetched.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`)) {
        return route.continue();
      }
      problems.push(`request outside the app: ${url}`);
      return route.abort();
    });
    context.on('response', (response) => {
      if (response.status() >= 400) {
        problems.push(`${response.status()} ${response.url()}`);
      }
    });
  });

  after(async () => {
    await context?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
    for (const folder of [userDataDir, ownApp]) {
      if (folder) {
        rmSync(folder, { recursive: true, force: true });
      }
    }
  });

  test('the module in the page reproduces the engine search vectors', async () => {
    const page = await open('?mode=duo');
    const vectors = description.search_vectors;
    const results = await page.evaluate(async (vectors) => {
      const { GrandMaitre } = await import('./heraldis.js');
      const ort = await import('./ort.wasm.min.mjs');
      const [model, description] = await Promise.all([
        fetch('model.onnx').then((r) => r.arrayBuffer()),
        fetch('model.json').then((r) => r.json()),
      ]);
      const bookFile = description.files?.book;
      const book = bookFile ? await fetch(bookFile).then((r) => r.text()) : undefined;
      const maitre = await GrandMaitre.load(ort, { model, description, book }, { executionProviders: ['wasm'] });
      const visits = (result) => Object.fromEntries(result.children.map((c) => [c.move, c.visits]));
      const third = Math.fround(1 / 3);
      // The engine records the logits of the legal moves only.
      const legalLogits = (pairs, count) => {
        const logits = new Float32Array(count);
        for (const [action, logit] of pairs) logits[action] = logit;
        return logits;
      };
      const uniform = async (positions) =>
        positions.map(() => ({ policyLogits: new Float32Array(26), wdl: [third, third, third] }));
      const out = { uniform: [], network: [], recorded: [], bars: [] };
      for (const vector of vectors.uniform) {
        const r = await maitre.search(vector.position, { simulations: vector.simulations, evaluator: uniform });
        out.uniform.push({ move: r.move, visits: visits(r) });
      }
      for (const vector of vectors.network) {
        const r = await maitre.search(vector.position, { simulations: vector.simulations });
        out.network.push({ move: r.move, visits: visits(r) });
      }
      for (const [index, vector] of vectors.recorded.searches.entries()) {
        const batches = vectors.recorded.batches[index];
        let next = 0;
        let mismatch = null;
        const replay = async (positions) => {
          const batch = batches[next] ?? [];
          next += 1;
          if (positions.map(String).join('|') !== batch.map((e) => e.position).join('|')) {
            mismatch ??= `batch ${next}`;
          }
          return positions.map((_, i) => ({
            policyLogits: legalLogits(batch[i]?.legal_logits ?? [], 26),
            wdl: (batch[i]?.wdl ?? [0, 1, 0]).map(Math.fround),
          }));
        };
        const r = await maitre.search(vector.position, { simulations: vector.simulations, evaluator: replay });
        out.recorded.push({ move: r.move, visits: visits(r), mismatch, batches: next });
      }
      for (const bar of vectors.bar) {
        out.bars.push(await maitre.bar(bar.position));
      }
      return out;
    }, vectors);
    vectors.uniform.forEach((vector, i) => assertSameSearch(results.uniform[i], vector, 0));
    vectors.recorded.searches.forEach((vector, i) => {
      assert.equal(results.recorded[i].mismatch, null, `${vector.position}: the engine's batches`);
      assert.equal(results.recorded[i].batches, vectors.recorded.batches[i].length);
      assertSameSearch(results.recorded[i], vector, 0);
    });
    vectors.network.forEach((vector, i) => assertSameSearch(results.network[i], vector, 0.02 * vector.simulations));
    vectors.bar.forEach((expected, i) => assertBar(results.bars[i], expected, `${expected.position} bar`));
    await page.close();
  });

  test('the start shows the engine bar, and « Conseil » the level 10 move', async () => {
    const page = await open('?mode=duo');
    await settled(page);
    const engine = description.search_vectors.bar.find((entry) => entry.position === START);
    const bar = await readBar(page);
    assert.equal(bar.position, START);
    // Two players: the engine's bar for two persons where the model reads
    // who plays.
    const twoPersons = engine.seated_bars?.find((entry) => entry.players === 'light=human dark=human' && entry.seated);
    assertBar(bar, twoPersons ?? engine, 'start bar');
    if (description.book) {
      // Light's win from the start is proven: the bar says so, and (where
      // it reads who plays) how often two persons convert it.
      assert.equal(bar.proven, 'light');
      assert.match(await page.$eval('#bar-note', (e) => e.textContent), /la partie est résolue/);
      if (twoPersons) {
        assert.equal(bar.players, 'light=human dark=human');
        assert.match(await page.$eval('#bar-note', (e) => e.textContent), /Gain forcé pour Clair/);
        assert.ok(bar.light < 1, 'two persons do not always convert a proven win');
      } else {
        assert.equal(bar.light, 1);
      }
    }
    assert.equal(await page.$$eval('#board .cell', (cells) => cells.length), 25);
    assert.equal(await page.$$eval('#board .cell.house', (cells) => cells.length), 10);
    assert.equal(await page.$eval('#reserve-light', (e) => e.textContent), '13 en réserve');
    assert.equal(await page.$eval('#reserve-dark', (e) => e.textContent), '13 en réserve');
    const advice = await grandMaitre.advise(START);
    await page.getByRole('button', { name: 'Conseil' }).click();
    await page.waitForFunction(() => document.getElementById('advice').dataset.move, null, { timeout: 120_000 });
    assert.equal(await page.$eval('#advice', (e) => e.dataset.move), advice.move);
    assert.match(await page.$eval('#advice', (e) => e.textContent), new RegExp(`Conseil du Grand Maître : ${advice.move}`));
    assert.equal(await page.$eval(`[data-cell="${advice.move}"]`, (e) => e.classList.contains('advised')), true);
    await screenshot(page, 'start-advice');
    await page.close();
  });

  test('a whole game against level 3: every move legal, the board, markers and end as the rules say', async () => {
    const game = grandMaitre.game;
    const page = await open('?mode=solo&level=3&colour=clair&seed=11');
    const random = generator(5);
    let position = Position.start();
    let plies = 0;
    for (;;) {
      const status = await settled(page);
      const moves = await page.$eval('#history', (h) => h.dataset.moves);
      // Replaying the page's history with the rules: every move legal.
      position = Position.start();
      for (const move of moves ? moves.split(' ') : []) {
        position = game.play(position, move);
      }
      plies = moves ? moves.split(' ').length : 0;
      assert.equal(await page.$eval('#board', (b) => b.dataset.position), String(position));
      await checkBoard(page, game, position, moves);
      if (plies === 6) {
        await screenshot(page, 'game-middle');
      }
      const result = game.result(position);
      if (result !== null) {
        assert.equal(status, 'over');
        const text = await page.$eval('#status', (e) => e.textContent);
        const expected = result.draw === 1 ? /^Partie nulle/ : result.light === 1 ? /^Vous gagnez/ : /^Le Grand Maître gagne/;
        assert.match(text, expected);
        break;
      }
      assert.equal(status, 'ready');
      assert.equal(position.side, LIGHT, 'the page waits for the player only on the player\'s turn');
      const actions = game.legalActions(position);
      const action = actions[Math.floor(random() * actions.length)];
      if (action === 25) {
        await page.getByRole('button', { name: 'Passer' }).click();
      } else {
        await page.click(`[data-cell="${cellName(action)}"]`);
      }
      assert.ok(plies < 150, 'the game ends');
    }
    assert.ok(plies >= 7, `a game of ${plies} plies`);
    await screenshot(page, 'game-end');
    await page.close();
  });

  test('two players take turns, and « Annuler » takes moves back', async () => {
    const page = await open('?mode=duo');
    await settled(page);
    await page.click('[data-cell="d2"]');
    await settled(page);
    await page.click('[data-cell="b5"]');
    await settled(page);
    assert.equal(await page.$eval('#history', (h) => h.dataset.moves), 'd2 b5');
    assert.match(await page.$eval('#history', (h) => h.textContent), /d2\s+b5/);
    assert.equal(await page.$eval('#reserve-light', (e) => e.textContent), '12 en réserve');
    assert.equal(await page.$eval('[data-cell="b5"]', (e) => e.dataset.markers), 'Maison immunisée, Dernier coup');
    // The bar reads the two persons by their moves, as the module does
    // given the same history.
    const shown = await readBar(page);
    const start = grandMaitre.position(START);
    const afterD2 = grandMaitre.game.play(start, 'd2');
    const history = [
      { position: start, move: 'd2' },
      { position: afterD2, move: 'b5' },
    ];
    const expected = await grandMaitre.bar(shown.position, { players: { light: 'human', dark: 'human' }, history });
    assertBar(shown, expected, 'bar after d2 b5');
    if (Object.keys(expected.beliefs).length > 0) {
      const belief = await page.$eval('#bar', (bar) => bar.dataset.belief);
      assert.match(belief, /^light=\d\.\d\d dark=\d\.\d\d$/);
      assert.match(await page.$eval('#bar-note', (e) => e.textContent), /D'après les coups joués : Clair joue comme le niveau/);
    }
    await screenshot(page, 'duo-after-d2-b5');
    await page.getByRole('button', { name: 'Annuler' }).click();
    await settled(page);
    assert.equal(await page.$eval('#history', (h) => h.dataset.moves), 'd2');
    await page.getByRole('button', { name: 'Annuler' }).click();
    await settled(page);
    assert.equal(await page.$eval('#board', (b) => b.dataset.position), START);
    assert.equal(await page.getByRole('button', { name: 'Annuler' }).isDisabled(), true);
    await page.close();
  });

  test('the keyboard plays: arrows choose the cell, Enter plays, A undoes', async () => {
    const page = await open('?mode=duo');
    await settled(page);
    await page.focus('[data-cell="c3"]');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.cell), 'b3');
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.cell), 'b4');
    await page.keyboard.press('Enter');
    await settled(page);
    assert.equal(await page.$eval('#history', (h) => h.dataset.moves), 'b4');
    await page.keyboard.press('a');
    await settled(page);
    assert.equal(await page.$eval('#history', (h) => h.dataset.moves), '');
    await page.close();
  });

  test('a bad ?position= shows its error alone', async () => {
    const page = await open(`?position=${encodeURIComponent('5/5/5/5 l - 0')}`);
    assert.equal(await page.$eval('body', (b) => b.dataset.status), 'error');
    assert.match(await page.$eval('#error', (e) => e.textContent), /^invalid position '5\/5\/5\/5 l - 0': expected 5 ranks/);
    assert.equal(await page.$eval('#status', (e) => e.textContent), '');
    const text = await page.$eval('body', (b) => b.innerText);
    assert.ok(!text.includes('Chargement'), text);
    await page.close();
  });

  test('nothing failed and nothing was fetched from outside the folder', () => {
    assert.deepEqual(problems, []);
  });
});

/** The page's board against the rules: pieces, reserves, markers. */
async function checkBoard(page, game, position, moves) {
  const cells = await page.$$eval('#board .cell', (buttons) =>
    buttons.map((b) => ({ cell: b.dataset.cell, piece: b.dataset.piece, markers: b.dataset.markers })),
  );
  const over = game.result(position) !== null;
  const legal = over ? 0 : game.legalMask(position);
  const list = moves ? moves.split(' ') : [];
  const lastMove = list.at(-1);
  const last = lastMove && lastMove !== 'pass' ? lastMove.replace('x', '') : null;
  for (const { cell, piece, markers } of cells) {
    const index = ['a', 'b', 'c', 'd', 'e'].indexOf(cell[0]) + 5 * (Number(cell[1]) - 1);
    assert.equal(piece, position.pieceAt(index) ?? '', `${cell} piece in ${position}`);
    const expected = [];
    const capturable = piece !== '' && ((legal >>> index) & 1) === 1;
    if (piece !== '' && game.layout.isHouse(index)) {
      expected.push('Maison immunisée');
    }
    if (cell === last) {
      expected.push(capturable ? 'Dernier coup capturable' : 'Dernier coup');
    } else if (capturable) {
      expected.push('Capturable');
    }
    if (position.truce === index && !over) {
      expected.push('Trêve');
    }
    assert.equal(markers, expected.join(', '), `${cell} markers in ${position}`);
  }
  for (const [id, side] of [['#reserve-light', 0], ['#reserve-dark', 1]]) {
    assert.equal(await page.$eval(id, (e) => e.textContent), `${position.reserve(side)} en réserve`);
  }
}
