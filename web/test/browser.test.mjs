// The demo page in headless Chromium (onnxruntime-web, wasm, one thread):
// the bar of the start position and the « Conseil » move must equal the
// export's test vector, and a click on a cell must play and update the bar.
//
//   GM_EXPORT=/path/to/export node --test test/browser.test.mjs
//
// GM_EXPORT defaults to ../checkpoints/heraldis/export (relative to web/);
// GM_SCREENSHOT=FILE.png saves the page after the move. Chromium is Debian's (/usr/bin/chromium; `apt-get install chromium`).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { chromium } from 'playwright-core';

import { GrandMaitre, Position, cellName } from '../heraldis.js';

const webDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const exportDir = process.env.GM_EXPORT
  ? path.resolve(process.env.GM_EXPORT)
  : path.resolve(webDir, '../checkpoints/heraldis/export');
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
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** Serves `web/` at `/` and the export at `/export/` on 127.0.0.1. */
function startServer() {
  const roots = [
    ['/export/', exportDir],
    ['/', webDir],
  ];
  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url, 'http://127.0.0.1');
      let pathname = decodeURIComponent(url.pathname);
      if (pathname.endsWith('/')) {
        pathname += 'index.html';
      }
      const [prefix, root] = roots.find(([start]) => pathname.startsWith(start));
      const file = path.resolve(root, `.${pathname.slice(prefix.length - 1)}`);
      if (file !== root && !file.startsWith(root + path.sep)) {
        response.writeHead(403).end();
        return;
      }
      const info = await stat(file).catch(() => null);
      if (!info || !info.isFile()) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const body = await readFile(file);
      response.writeHead(200, {
        'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-store',
      });
      response.end(body);
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
    position: bar.dataset.position,
  }));
}

function assertBar(actual, expected, label) {
  for (const key of ['light', 'draw', 'dark']) {
    const gap = Math.abs(actual[key] - expected[key]);
    assert.ok(gap <= TOLERANCE, `${label} ${key}: page ${actual[key]}, expected ${expected[key]}`);
  }
}

describe('the demo page in Chromium', { timeout: 180_000 }, () => {
  let server;
  let context;
  let page;
  let userDataDir;
  let description;
  let grandMaitre;
  const pageErrors = [];

  before(async () => {
    if (!existsSync(path.join(exportDir, 'model.json'))) {
      throw new Error(
        `no export at ${exportDir}: run 'grandmaitre export --model checkpoints/heraldis --out DIR' and set GM_EXPORT=DIR`,
      );
    }
    if (!existsSync(CHROMIUM)) {
      throw new Error(`no ${CHROMIUM}: install it with 'apt-get install -y chromium'`);
    }
    description = JSON.parse(readFileSync(path.join(exportDir, 'model.json'), 'utf8'));
    grandMaitre = await GrandMaitre.load(ort, {
      model: readFileSync(path.join(exportDir, 'model.onnx')),
      description,
    });
    server = await startServer();
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
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400) {
        pageErrors.push(`${response.status()} ${response.url()}`);
      }
    });
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        pageErrors.push(message.text());
      }
    });
    const { port } = server.address();
    await page.goto(`http://127.0.0.1:${port}/demo/?export=/export/`);
    await page.waitForFunction(
      () => ['ready', 'error'].includes(document.body.dataset.status),
      null,
      { timeout: 120_000 },
    );
    const status = await page.$eval('body', (body) => body.dataset.status);
    if (status !== 'ready') {
      const message = await page.$eval('#error', (element) => element.textContent);
      throw new Error(`the demo failed to load: ${message} ${pageErrors.join(' | ')}`);
    }
  });

  after(async () => {
    await context?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
    if (userDataDir) {
      rmSync(userDataDir, { recursive: true, force: true });
    }
  });

  test('shows the start position bar of the test vector', async () => {
    const vector = description.test_vectors.find((entry) => entry.position === START);
    assert.ok(vector, 'model.json has a test vector for the start position');
    const bar = await readBar(page);
    assert.equal(bar.position, START);
    assertBar(bar, vector.bar, 'start bar');
    const cells = await page.$$eval('#board .cell', (buttons) => buttons.length);
    assert.equal(cells, 25);
    const houses = await page.$$eval('#board .cell.house', (buttons) => buttons.length);
    assert.equal(houses, 10);
  });

  test('« Conseil » shows the test vector best move', async () => {
    const vector = description.test_vectors.find((entry) => entry.position === START);
    await page.getByRole('button', { name: 'Conseil' }).click();
    await page.waitForFunction(() => document.getElementById('advice').dataset.move);
    const move = await page.$eval('#advice', (advice) => advice.dataset.move);
    assert.equal(move, vector.best_move);
    const text = await page.$eval('#advice', (advice) => advice.textContent);
    assert.ok(text.includes(vector.best_move), text);
  });

  test('clicking a legal cell plays it and updates the bar', async () => {
    const vector = description.test_vectors.find((entry) => entry.position === START);
    const move = vector.best_move;
    const expected = grandMaitre.game.play(Position.start(), move);
    const expectedText = String(expected);
    // A House is not playable on the First Oath: clicking one does nothing.
    const house = cellName(grandMaitre.game.layout.sites.findIndex((site) => site.length === 1));
    await page.click(`#board [data-cell="${house}"]`);
    assert.equal(await page.$eval('#board', (board) => board.dataset.position), START);

    await page.click(`#board [data-cell="${move}"]`);
    await page.waitForFunction(
      (text) =>
        document.getElementById('bar').dataset.position === text &&
        document.body.dataset.status === 'ready',
      expectedText,
    );
    const bar = await readBar(page);
    const reference = await grandMaitre.evaluate(expected);
    assertBar(bar, reference, `bar after ${move}`);
    const start = vector.bar;
    assert.ok(
      ['light', 'draw', 'dark'].some((key) => Math.abs(bar[key] - start[key]) > 1e-9),
      'the bar changed',
    );
    const piece = await page.$eval(`#board [data-cell="${move}"]`, (cell) => cell.dataset.piece);
    assert.equal(piece, 'L');
    if (process.env.GM_SCREENSHOT) {
      await page.screenshot({ path: process.env.GM_SCREENSHOT, fullPage: true });
    }
    assert.deepEqual(pageErrors, []);
  });
});
