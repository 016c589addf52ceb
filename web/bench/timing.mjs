// How long the app waits for the Grand Maître in headless Chromium
// (onnxruntime-web, wasm, one thread): the bar, then « Conseil » at level
// 10, on 20 distinct positions of random games (seeded, 0 to 12 plies),
// each with nothing kept from the others (the module's cache of network
// outputs emptied), median and worst. A benchmark, not a test: run it on a
// quiet machine. SLOWDOWN slows the page's CPU that many times (DevTools'
// CPU throttling: 4 is a mid-range phone).
//
//   node bench/timing.mjs APP_DIR [POSITIONS [SLOWDOWN]]
//
// APP_DIR is a folder assembled by scripts/web-app.sh.

import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';

const [appArgument, countArgument = '20', slowdownArgument = '1'] = process.argv.slice(2);
const count = Number(countArgument);
const slowdown = Number(slowdownArgument);
if (!appArgument || !(Number.isInteger(count) && count > 0) || !(slowdown >= 1)) {
  console.error('usage: node bench/timing.mjs APP_DIR [POSITIONS [SLOWDOWN]]');
  process.exit(2);
}
const appDir = path.resolve(appArgument);
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm' };

const server = createServer(async (request, response) => {
  let pathname = new URL(request.url, 'http://127.0.0.1').pathname;
  if (pathname.endsWith('/')) {
    pathname += 'index.html';
  }
  const file = path.join(appDir, path.normalize(pathname));
  const info = await stat(file).catch(() => null);
  if (!file.startsWith(appDir) || !info?.isFile()) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
  response.end(await readFile(file));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/?mode=duo`);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.status), null, { timeout: 120_000 });
  if (slowdown > 1) {
    const devtools = await page.context().newCDPSession(page);
    await devtools.send('Emulation.setCPUThrottlingRate', { rate: slowdown });
  }
  const times = await page.evaluate(async (count) => {
    const { GrandMaitre, Position } = await import('./heraldis.js');
    const ort = await import('./ort.wasm.min.mjs');
    ort.env.wasm.numThreads = 1;
    const [model, description] = await Promise.all([
      fetch('model.onnx').then((r) => r.arrayBuffer()),
      fetch('model.json').then((r) => r.json()),
    ]);
    // The solution book, when the description names one (the bar there is
    // its exact result: the timing starts off it, from random plies).
    const bookFile = description.files?.book;
    const book = bookFile ? await fetch(bookFile).then((r) => r.text()) : undefined;
    const maitre = await GrandMaitre.load(ort, { model, description, book }, { executionProviders: ['wasm'] });
    const game = maitre.game;
    let seed = 2026;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const positions = [];
    const seen = new Set();
    while (positions.length < count) {
      let position = Position.start();
      const plies = positions.length === 0 ? 0 : Math.floor(random() * 13);
      for (let ply = 0; ply < plies && !game.isOver(position); ply += 1) {
        const actions = game.legalActions(position);
        position = game.apply(position, actions[Math.floor(random() * actions.length)]);
      }
      if (!game.isOver(position) && !seen.has(String(position))) {
        seen.add(String(position));
        positions.push(position);
      }
    }
    // Warm-up, on a position of its own off the book (the start is the
    // book's: it would leave the search's code cold for the first one).
    let warm = Position.start();
    for (let ply = 0; ply < 3; ply += 1) {
      const actions = game.legalActions(warm);
      warm = game.apply(warm, actions[Math.floor(actions.length / 2)]);
    }
    await maitre.bar(warm);
    await maitre.advise(warm);
    const out = [];
    for (const position of positions) {
      // As the app: the bar when the position appears, « Conseil » when asked.
      maitre.forget();
      const t0 = performance.now();
      await maitre.bar(position);
      const t1 = performance.now();
      const advice = await maitre.advise(position);
      const t2 = performance.now();
      out.push({ position: String(position), bar: t1 - t0, advice: t2 - t1, visits: advice.visits });
    }
    return out;
  }, count);
  const summary = (key) => {
    const values = times.map((t) => t[key]).sort((a, b) => a - b);
    const middle = values.length / 2;
    const median = values.length % 2 ? values[Math.floor(middle)] : (values[middle - 1] + values[middle]) / 2;
    return `median ${median.toFixed(0)} ms, worst ${values.at(-1).toFixed(0)} ms`;
  };
  for (const t of times) {
    console.log(`${t.position.padEnd(36)} conseil ${t.advice.toFixed(0).padStart(5)} ms (${t.visits} visits)  bar ${t.bar.toFixed(0).padStart(4)} ms`);
  }
  const slowed = slowdown > 1 ? `, CPU slowed ${slowdown}×` : '';
  console.log(`« Conseil » (level 10) over ${times.length} positions${slowed}: ${summary('advice')}`);
  console.log(`the bar (64 simulations) over ${times.length} positions${slowed}: ${summary('bar')}`);
} finally {
  await browser.close();
  server.close();
}
