// Demo of the Grand Maître in a page: the board on the export's layout, the
// win-probability bar (« Clair » / « Foncé »), « Conseil » for the network's
// move, and a click on a cell plays a legal move for the side to move.
//
// Query parameters: `export` (the URL of the folder with model.onnx and
// model.json, default /export/) and `position` (a start position in the
// engine's notation, default the empty board).
//
// The numbers shown are also on the page as data attributes, for tests:
// `#bar[data-light|data-draw|data-dark|data-position]`,
// `#advice[data-move|data-position]`, `body[data-status]` (`loading`,
// `ready`, `busy`, `error`) and `#board[data-position]`.

import * as ort from '/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs';
import {
  GrandMaitre,
  LIGHT,
  PASS,
  Position,
  SIZE,
  cellAt,
  cellName,
} from '../heraldis.js';

const SYMBOL_NAMES = { L: 'Loup', A: 'Aigle', O: 'Ours', C: 'Cerf', S: 'Sanglier' };
const COLOURS = ['Clair', 'Foncé'];

const page = {
  body: document.body,
  board: document.getElementById('board'),
  bar: document.getElementById('bar'),
  barLight: document.getElementById('bar-light'),
  barDraw: document.getElementById('bar-draw'),
  barDark: document.getElementById('bar-dark'),
  labelLight: document.getElementById('label-light'),
  labelDraw: document.getElementById('label-draw'),
  labelDark: document.getElementById('label-dark'),
  status: document.getElementById('status'),
  info: document.getElementById('info'),
  advice: document.getElementById('advice'),
  adviceButton: document.getElementById('advice-button'),
  passButton: document.getElementById('pass-button'),
  undoButton: document.getElementById('undo-button'),
  newButton: document.getElementById('new-button'),
  error: document.getElementById('error'),
};

const state = {
  grandMaitre: null,
  game: null,
  start: null,
  history: [],
  position: null,
  evaluation: null, // { position: text, result } of the shown position
  queue: Promise.resolve(),
  cells: [],
};

/** Runs network work one call at a time (a session runs one batch at once). */
function serially(work) {
  const run = state.queue.then(work, work);
  state.queue = run.catch(() => {});
  return run;
}

function showError(error) {
  page.body.dataset.status = 'error';
  page.error.textContent = error instanceof Error ? error.message : String(error);
}

function percent(p) {
  return `${(100 * p).toFixed(1).replace('.', ',')} %`;
}

function buildBoard() {
  const { layout } = state.game;
  page.board.replaceChildren();
  state.cells = new Array(SIZE * SIZE);
  for (let rank = SIZE - 1; rank >= 0; rank -= 1) {
    const label = document.createElement('div');
    label.className = 'coord';
    label.textContent = String(rank + 1);
    page.board.append(label);
    for (let file = 0; file < SIZE; file += 1) {
      const cell = cellAt(file, rank);
      const button = document.createElement('button');
      button.type = 'button';
      button.className = layout.isHouse(cell) ? 'cell house' : 'cell alliance';
      button.dataset.cell = cellName(cell);
      const token = layout.token(cell);
      const names = [...token].map((letter) => SYMBOL_NAMES[letter]).join(' + ');
      button.title = `${cellName(cell)} — ${layout.isHouse(cell) ? 'Maison' : 'Alliance'} ${names}`;
      const symbols = document.createElement('span');
      symbols.className = 'symbols';
      symbols.textContent = token;
      button.append(symbols);
      button.addEventListener('click', () => play(cell));
      page.board.append(button);
      state.cells[cell] = button;
    }
  }
  page.board.append(document.createElement('div'));
  for (const file of 'abcde') {
    const label = document.createElement('div');
    label.className = 'coord';
    label.textContent = file;
    page.board.append(label);
  }
}

function renderBoard() {
  const { game, position } = state;
  const legal = game.legalMask(position);
  const theirs = position.pieces[1 - position.side];
  state.cells.forEach((button, cell) => {
    button.querySelector('.piece')?.remove();
    const piece = position.pieceAt(cell);
    if (piece !== null) {
      const disc = document.createElement('span');
      disc.className = piece === 'L' ? 'piece light' : 'piece dark';
      disc.setAttribute('aria-label', piece === 'L' ? 'pion clair' : 'pion foncé');
      button.append(disc);
    }
    const isLegal = ((legal >>> cell) & 1) === 1;
    button.classList.toggle('legal', isLegal);
    button.classList.toggle('capture', isLegal && ((theirs >>> cell) & 1) === 1);
    button.classList.toggle('truce', position.truce === cell);
    button.classList.remove('advised');
    button.dataset.piece = piece ?? '';
  });
  page.board.dataset.position = String(position);
  page.passButton.disabled = ((legal >>> PASS) & 1) === 0;
  page.undoButton.disabled = state.history.length === 0;

  const result = game.result(position);
  if (result !== null) {
    page.status.textContent = result.draw === 1
      ? 'Partie nulle.'
      : `${result.light === 1 ? 'Clair' : 'Foncé'} gagne !`;
  } else {
    page.status.textContent = `Au tour de ${COLOURS[position.side]}${
      position.ply === 0 ? ' — Premier Serment : sur une Alliance' : ''
    }.`;
  }
  page.info.textContent =
    `Coup ${position.ply} sur ${game.plyLimit} · réserves : Clair ${position.reserve(LIGHT)}, ` +
    `Foncé ${position.reserve(1 - LIGHT)}` +
    (position.truce >= 0 ? ` · Trêve en ${cellName(position.truce)}` : '');
  page.advice.textContent = '';
  delete page.advice.dataset.move;
  delete page.advice.dataset.position;
}

function showBar(positionText, result) {
  const { light, draw, dark } = result;
  page.barLight.style.width = `${100 * light}%`;
  page.barDraw.style.width = `${100 * draw}%`;
  page.barDark.style.width = `${100 * dark}%`;
  page.labelLight.textContent = percent(light);
  page.labelDraw.textContent = percent(draw);
  page.labelDark.textContent = percent(dark);
  page.bar.setAttribute(
    'aria-label',
    `Clair ${percent(light)}, nulle ${percent(draw)}, Foncé ${percent(dark)}`,
  );
  Object.assign(page.bar.dataset, {
    light: String(light),
    draw: String(draw),
    dark: String(dark),
    position: positionText,
  });
}

/** Evaluates the shown position and updates the bar. */
function refresh() {
  const position = state.position;
  const text = String(position);
  page.body.dataset.status = 'busy';
  page.adviceButton.disabled = true;
  return serially(async () => {
    const result = await state.grandMaitre.evaluate(position);
    if (String(state.position) !== text) {
      return; // a move was played meanwhile: its own evaluation follows
    }
    state.evaluation = { position: text, result };
    showBar(text, result);
    page.adviceButton.disabled = result.move === null;
    page.body.dataset.status = 'ready';
  }).catch(showError);
}

function setPosition(position) {
  state.position = position;
  state.evaluation = null;
  renderBoard();
  return refresh();
}

function play(action) {
  const { game, position } = state;
  if (page.body.dataset.status === 'loading' || !game.isLegal(position, action)) {
    return;
  }
  state.history.push(position);
  setPosition(game.apply(position, action));
}

async function advise() {
  const text = String(state.position);
  await state.queue;
  const evaluation = state.evaluation;
  if (!evaluation || evaluation.position !== text || evaluation.result.move === null) {
    return;
  }
  const { move } = evaluation.result;
  page.advice.textContent = `Conseil du Grand Maître : ${move === 'pass' ? 'passer' : move}`;
  page.advice.dataset.move = move;
  page.advice.dataset.position = text;
  const cell = move === 'pass' ? -1 : state.game.parseAction(state.position, move);
  if (cell >= 0 && cell !== PASS) {
    state.cells[cell].classList.add('advised');
  }
}

async function main() {
  const params = new URLSearchParams(window.location.search);
  let exportUrl = params.get('export') ?? '/export/';
  if (!exportUrl.endsWith('/')) {
    exportUrl += '/';
  }
  const dist = new URL('/node_modules/onnxruntime-web/dist/', window.location.href).href;
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = dist;

  const [description, model] = await Promise.all([
    fetch(`${exportUrl}model.json`).then((response) => {
      if (!response.ok) {
        throw new Error(`model.json introuvable (${response.status}) à ${exportUrl}`);
      }
      return response.json();
    }),
    fetch(`${exportUrl}model.onnx`).then((response) => {
      if (!response.ok) {
        throw new Error(`model.onnx introuvable (${response.status}) à ${exportUrl}`);
      }
      return response.arrayBuffer();
    }),
  ]);
  state.grandMaitre = await GrandMaitre.load(
    ort,
    { model, description },
    { executionProviders: ['wasm'] },
  );
  state.game = state.grandMaitre.game;
  const start = params.get('position');
  state.start = start ? state.game.parsePosition(start) : Position.start();
  buildBoard();

  page.adviceButton.addEventListener('click', () => advise().catch(showError));
  page.passButton.addEventListener('click', () => play(PASS));
  page.undoButton.addEventListener('click', () => {
    if (state.history.length > 0) {
      setPosition(state.history.pop());
    }
  });
  page.newButton.addEventListener('click', () => {
    state.history = [];
    setPosition(state.start);
  });
  page.newButton.disabled = false;
  await setPosition(state.start);
}

main().catch(showError);
