// The game screen of the Heraldis app: a game for two players, or against
// the Grand Maître at « Niveau » 1 to 10 with either colour; the calibrated
// win-probability bar above the board (the engine's bar), « Conseil » (the
// engine's level 10), undo, the history of moves, the reserves and the
// board's markers; playable with the keyboard. It runs offline from one
// folder of static files (`scripts/web-app.sh` assembles it): this file,
// index.html, the export (heraldis.js, search.js, model.onnx, model.json)
// and onnxruntime-web's wasm build.
//
// Query parameters: `position` (a start position in the engine's notation,
// default the empty board), `mode` (`solo` or `duo`), `level` (1–10),
// `colour` (`clair` or `fonce`: the side the player takes against the Grand
// Maître) and `seed` (the Grand Maître's random choices, for a game that
// replays the same).
//
// What the page shows is also in data attributes, for tests:
// `body[data-status]` (`loading`, `ready`, `thinking`, `over`, `error`),
// `#board[data-position]`, each cell's `[data-cell|data-piece|data-markers]`,
// `#bar[data-light|data-draw|data-dark|data-exact|data-proven|data-players|data-belief|data-position]`,
// `#advice[data-move|data-position]`, `#history[data-moves]`.

import * as ort from './ort.wasm.min.mjs';
import {
  DARK,
  GrandMaitre,
  LIGHT,
  PASS,
  Position,
  SIZE,
  cellAt,
  cellName,
} from './heraldis.js';

const SYMBOL_NAMES = { L: 'Loup', A: 'Aigle', O: 'Ours', C: 'Cerf', S: 'Sanglier' };
const COLOURS = ['Clair', 'Foncé'];
const LEVEL_NAMES = [
  'premiers pas',
  'débutant',
  'initié',
  'amateur',
  'joueur de club',
  'confirmé',
  'fort',
  'expert',
  'maître',
  'force maximale',
];
/** The four directions of a line: right, up, up-right, up-left. */
const DIRECTIONS = [
  [1, 0],
  [0, 1],
  [1, 1],
  [-1, 1],
];

const $ = (id) => document.getElementById(id);
const page = {
  body: document.body,
  settings: $('settings'),
  opponent: $('opponent'),
  level: $('level'),
  board: $('board'),
  bar: $('bar'),
  barLight: $('bar-light'),
  barDraw: $('bar-draw'),
  barDark: $('bar-dark'),
  labelLight: $('label-light'),
  labelDraw: $('label-draw'),
  labelDark: $('label-dark'),
  barNote: $('bar-note'),
  players: [$('player-light'), $('player-dark')],
  reserves: [$('reserve-light'), $('reserve-dark')],
  status: $('status'),
  advice: $('advice'),
  adviceButton: $('advice-button'),
  passButton: $('pass-button'),
  undoButton: $('undo-button'),
  newButton: $('new-button'),
  history: $('history'),
  error: $('error'),
};

const state = {
  grandMaitre: null,
  game: null,
  start: null,
  /** The settings of the game in progress. */
  mode: 'solo',
  level: 5,
  human: LIGHT,
  seed: 0,
  /** The Grand Maître as the opponent (solo mode). */
  player: null,
  /** The moves played: `{ before, action, text }`. */
  moves: [],
  position: null,
  /** Bumped at every change: work started before a change is dropped. */
  epoch: 0,
  thinking: false,
  cells: [],
  focus: 0,
};

function showError(error) {
  page.body.dataset.status = 'error';
  page.status.textContent = '';
  page.error.textContent = error instanceof Error ? error.message : String(error);
}

function percent(p) {
  return `${(100 * p).toFixed(1).replace('.', ',')} %`;
}

function reserveText(count) {
  return `${count} en réserve`;
}

/** The cells of a line of four of `pieces`, or null. */
function lineOfFour(pieces) {
  for (let rank = 0; rank < SIZE; rank += 1) {
    for (let file = 0; file < SIZE; file += 1) {
      for (const [df, dr] of DIRECTIONS) {
        const cells = [];
        for (let step = 0; step < 4; step += 1) {
          const f = file + step * df;
          const r = rank + step * dr;
          if (f < 0 || f >= SIZE || r < 0 || r >= SIZE) {
            break;
          }
          const cell = cellAt(f, r);
          if (((pieces >>> cell) & 1) === 0) {
            break;
          }
          cells.push(cell);
        }
        if (cells.length === 4) {
          return cells;
        }
      }
    }
  }
  return null;
}

/** Whether the Grand Maître is to move in the game shown. */
function grandMaitreToMove() {
  return (
    state.mode === 'solo' &&
    state.position.side !== state.human &&
    state.game.result(state.position) === null
  );
}

function buildLevels() {
  for (const level of state.grandMaitre.levels) {
    const option = document.createElement('option');
    option.value = String(level.number);
    option.textContent = `${level.number} — ${LEVEL_NAMES[level.number - 1]}`;
    page.level.append(option);
  }
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
      button.tabIndex = -1;
      const symbols = document.createElement('span');
      symbols.className = 'symbols';
      symbols.textContent = layout.token(cell);
      symbols.setAttribute('aria-hidden', 'true');
      const marks = document.createElement('span');
      marks.className = 'marks';
      marks.setAttribute('aria-hidden', 'true');
      button.append(symbols, marks);
      button.addEventListener('click', () => humanPlays(cell));
      button.addEventListener('focus', () => {
        state.focus = cell;
      });
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
  state.focus = cellAt(2, 2);
}

/**
 * What a cell shows beyond its piece: the names of its markers (`legal`:
 * the legal moves, none once the game is over).
 */
function markersOf(cell, { position, legal, last, over }) {
  const { game } = state;
  const markers = [];
  const piece = position.pieceAt(cell);
  const capturable = piece !== null && ((legal >>> cell) & 1) === 1;
  if (piece !== null && game.layout.isHouse(cell)) {
    markers.push('Maison immunisée');
  }
  if (cell === last) {
    markers.push(capturable ? 'Dernier coup capturable' : 'Dernier coup');
  } else if (capturable) {
    markers.push('Capturable');
  }
  if (position.truce === cell && !over) {
    markers.push('Trêve');
  }
  return markers;
}

function render() {
  const { game, position, moves } = state;
  const result = game.result(position);
  const legal = result === null ? game.legalMask(position) : 0;
  const humanTurn = result === null && !grandMaitreToMove();
  const lastMove = moves.at(-1);
  const last = lastMove && lastMove.action !== PASS ? lastMove.action : -1;
  const winning = result !== null && result.draw !== 1
    ? lineOfFour(position.pieces[result.light === 1 ? LIGHT : DARK])
    : null;
  const { layout } = game;
  state.cells.forEach((button, cell) => {
    button.querySelector('.piece')?.remove();
    const piece = position.pieceAt(cell);
    if (piece !== null) {
      const disc = document.createElement('span');
      disc.className = piece === 'L' ? 'piece light' : 'piece dark';
      disc.setAttribute('aria-hidden', 'true');
      button.append(disc);
    }
    const markers = markersOf(cell, { position, legal, last, over: result !== null });
    const isLegal = humanTurn && ((legal >>> cell) & 1) === 1;
    button.classList.toggle('legal', isLegal);
    button.classList.toggle('capture', isLegal && piece !== null);
    button.classList.toggle('immune', markers.includes('Maison immunisée'));
    button.classList.toggle(
      'capturable',
      markers.includes('Capturable') || markers.includes('Dernier coup capturable'),
    );
    button.classList.toggle('last', cell === last);
    button.classList.toggle('truce', markers.includes('Trêve'));
    button.classList.toggle('winning', winning !== null && winning.includes(cell));
    button.classList.remove('advised');
    button.querySelector('.marks').textContent = markers.includes('Trêve') ? 'Trêve' : '';
    button.dataset.piece = piece ?? '';
    button.dataset.markers = markers.join(', ');
    const token = layout.token(cell);
    const names = [...token].map((letter) => SYMBOL_NAMES[letter]).join(' + ');
    const content = piece === null ? 'vide' : `pion ${piece === 'L' ? 'clair' : 'foncé'}`;
    const details = [
      `${cellName(cell)}, ${layout.isHouse(cell) ? 'Maison' : 'Alliance'} ${names}, ${content}`,
      ...markers,
    ];
    if (isLegal) {
      details.push(piece === null ? 'jouable' : 'prise possible');
    }
    button.setAttribute('aria-label', details.join(', '));
    button.title = details.join(' · ');
    button.tabIndex = cell === state.focus ? 0 : -1;
  });
  page.board.dataset.position = String(position);

  for (const side of [LIGHT, DARK]) {
    page.reserves[side].textContent = reserveText(position.reserve(side));
    page.players[side].classList.toggle('to-move', result === null && position.side === side);
  }
  renderHistory();

  const passLegal = ((legal >>> PASS) & 1) === 1;
  page.passButton.disabled = !humanTurn || !passLegal || state.thinking;
  page.undoButton.disabled = state.thinking || undoTarget() === moves.length;
  page.adviceButton.disabled = result !== null || state.thinking;
  page.advice.textContent = '';
  delete page.advice.dataset.move;
  delete page.advice.dataset.position;

  if (result !== null) {
    page.status.textContent = endText(result, winning);
    page.body.dataset.status = 'over';
  } else if (state.thinking) {
    page.status.textContent = `Le Grand Maître réfléchit… (niveau ${state.level})`;
    page.body.dataset.status = 'thinking';
  } else {
    const who = state.mode === 'solo' ? `À vous de jouer (${COLOURS[position.side]})` : `Au tour de ${COLOURS[position.side]}`;
    let note = '';
    if (position.ply === 0) {
      note = ' — Premier Serment : sur une Alliance';
    } else if (passLegal) {
      note = ' — réserve vide : passez';
    }
    page.status.textContent = `${who}${note}.`;
    page.body.dataset.status = 'ready';
  }
}

/** How the game ended, in words. */
function endText(result, winning) {
  if (result.draw === 1) {
    return state.position.occupied === (1 << (SIZE * SIZE)) - 1
      ? 'Partie nulle : le plateau est plein.'
      : `Partie nulle : ${state.game.plyLimit} coups joués sans vainqueur.`;
  }
  const winner = result.light === 1 ? LIGHT : DARK;
  const line = winning ? ` (${winning.map(cellName).join(' ')})` : '';
  const who = state.mode === 'solo'
    ? (winner === state.human ? 'Vous gagnez' : 'Le Grand Maître gagne')
    : `${COLOURS[winner]} gagne`;
  return `${who} : quatre en ligne${line}.`;
}

function renderHistory() {
  const items = [];
  let current = null;
  for (const { before, text } of state.moves) {
    const number = Math.floor(before.ply / 2) + 1;
    if (current === null || before.side === LIGHT) {
      current = { number, light: before.side === LIGHT ? text : '…', dark: '' };
      items.push(current);
      if (before.side === DARK) {
        current.dark = text;
      }
    } else {
      current.dark = text;
    }
  }
  page.history.replaceChildren(
    ...items.map(({ number, light, dark }) => {
      const item = document.createElement('li');
      item.value = number;
      item.textContent = dark ? `${light}  ${dark}` : light;
      return item;
    }),
  );
  page.history.dataset.moves = state.moves.map((m) => m.text).join(' ');
}

function showBar(positionText, bar) {
  const { light, draw, dark, exact, book, proven, seated } = bar;
  page.barLight.style.width = `${100 * light}%`;
  page.barDraw.style.width = `${100 * draw}%`;
  page.barDark.style.width = `${100 * dark}%`;
  page.labelLight.textContent = percent(light);
  page.labelDraw.textContent = percent(draw);
  page.labelDark.textContent = percent(dark);
  page.bar.setAttribute('aria-label', `Clair ${percent(light)}, nulle ${percent(draw)}, Foncé ${percent(dark)}`);
  const forced = { light: 'gain forcé pour Clair', dark: 'gain forcé pour Foncé', draw: 'nulle forcée' }[proven];
  let note = seated
    ? `Chances de chaque camp selon la position et qui joue (${whoPlaysText()}), calibrées sur les parties du Grand Maître.${beliefText(bar.beliefs)}`
    : 'Probabilités calibrées du Grand Maître (recherche de 64 simulations).';
  if (exact) {
    note = book ? 'Résultat certain : la partie est résolue, le Grand Maître en connaît la solution.' : 'Résultat certain.';
  } else if (forced) {
    const how = book ? 'la partie est résolue' : 'le Grand Maître le prouve';
    note = `« ${forced[0].toUpperCase()}${forced.slice(1)} » : ${how} ; les chances disent combien de fois ces joueurs le concrétisent.`;
  }
  page.barNote.textContent = note;
  Object.assign(page.bar.dataset, {
    light: String(light),
    draw: String(draw),
    dark: String(dark),
    exact: String(exact),
    proven: String(proven ?? ''),
    players: String(bar.players ?? ''),
    belief: Object.entries(bar.beliefs ?? {})
      .map(([side, belief]) => `${side}=${belief.meanLevel.toFixed(2)}`)
      .join(' '),
    position: positionText,
  });
}

/** What the bar believes of the persons' play, from their moves, in words. */
function beliefText(beliefs) {
  const names = { light: 'Clair', dark: 'Foncé' };
  const known = Object.entries(beliefs ?? {}).filter(([, belief]) => belief.moves > 0);
  if (known.length === 0) {
    return '';
  }
  const words = known.map(([side, belief]) => `${names[side]} joue comme le niveau ${belief.meanLevel.toFixed(1).replace('.', ',')}`);
  return ` D'après les coups joués : ${words.join(', ')}.`;
}

/**
 * Who plays each side, as the bar reads it: against the Grand Maître, its
 * level on its colour and a person of unknown strength on the other; two
 * players, two persons.
 */
function whoPlays() {
  if (state.mode !== 'solo') {
    return { light: 'human', dark: 'human' };
  }
  return state.human === LIGHT ? { light: 'human', dark: state.level } : { light: state.level, dark: 'human' };
}

/** `whoPlays` in words. */
function whoPlaysText() {
  const seat = (value) => (value === 'human' ? 'vous' : `niveau ${value}`);
  const players = whoPlays();
  if (state.mode !== 'solo') {
    return 'deux joueurs';
  }
  return `Clair : ${seat(players.light)}, Foncé : ${seat(players.dark)}`;
}

/** The bar of the shown position (dropped if the position changed). */
async function refreshBar() {
  const epoch = state.epoch;
  const position = state.position;
  // The moves played so far tell the bar how the persons play.
  const history = state.moves.map(({ before, text }) => ({ position: before, move: text }));
  const bar = await state.grandMaitre.bar(position, { players: whoPlays(), history });
  if (epoch === state.epoch) {
    showBar(String(position), bar);
  }
}

/** Plays `action` in the shown position, then lets the Grand Maître answer. */
function commit(action) {
  const { game } = state;
  const before = state.position;
  const text = game.formatAction(before, action);
  state.moves.push({ before, action, text });
  state.position = game.apply(before, action);
  state.player?.observe(before, action);
  changed();
}

/** After any change of the position: redraw, the bar, the Grand Maître's turn. */
function changed() {
  state.epoch += 1;
  render();
  refreshBar().catch(showError);
  if (grandMaitreToMove()) {
    think().catch(showError);
  }
}

async function think() {
  const epoch = state.epoch;
  const position = state.position;
  state.thinking = true;
  render();
  let choice;
  try {
    choice = await state.player.select(position);
  } finally {
    if (epoch === state.epoch) {
      state.thinking = false;
    }
  }
  if (epoch !== state.epoch) {
    return;
  }
  commit(state.game.parseAction(position, choice.move));
}

function humanPlays(action) {
  const { game, position } = state;
  if (
    !['ready'].includes(page.body.dataset.status) ||
    state.thinking ||
    grandMaitreToMove() ||
    !game.isLegal(position, action)
  ) {
    return;
  }
  commit(action);
}

/** The number of moves left after « Annuler »: back to the player's turn. */
function undoTarget() {
  let count = state.moves.length;
  if (count === 0) {
    return 0;
  }
  count -= 1;
  if (state.mode === 'solo') {
    // Back to a position where the player is to move.
    while (count > 0 && state.moves[count].before.side !== state.human) {
      count -= 1;
    }
    if (state.moves[count].before.side !== state.human) {
      // The Grand Maître opened the game: the player cannot undo its move.
      return state.moves.length;
    }
  }
  return count;
}

function undo() {
  if (state.thinking) {
    return;
  }
  const target = undoTarget();
  if (target === state.moves.length) {
    return;
  }
  state.position = state.moves[target].before;
  state.moves.length = target;
  // The Grand Maître's tree followed the moves taken back: it starts afresh.
  state.player = newPlayer();
  changed();
}

async function advise() {
  if (state.game.result(state.position) !== null || state.thinking) {
    return;
  }
  const epoch = state.epoch;
  const position = state.position;
  page.adviceButton.disabled = true;
  page.advice.textContent = 'Le Grand Maître cherche un conseil…';
  const advice = await state.grandMaitre.advise(position);
  if (epoch !== state.epoch) {
    return;
  }
  page.adviceButton.disabled = false;
  const { move } = advice;
  page.advice.textContent = `Conseil du Grand Maître : ${move === 'pass' ? 'passer' : move}`;
  page.advice.dataset.move = move;
  page.advice.dataset.position = String(position);
  const action = state.game.parseAction(position, move);
  if (action !== PASS) {
    state.cells[action].classList.add('advised');
  }
}

function newPlayer() {
  if (state.mode !== 'solo') {
    return null;
  }
  state.seed += 1;
  return state.grandMaitre.player({ level: state.level, seed: state.seed });
}

function readSettings() {
  const form = new FormData(page.settings);
  state.mode = form.get('mode') === 'duo' ? 'duo' : 'solo';
  state.level = Number(page.level.value);
  state.human = form.get('colour') === '1' ? DARK : LIGHT;
  page.opponent.disabled = state.mode !== 'solo';
}

function newGame() {
  readSettings();
  state.moves = [];
  state.position = state.start;
  state.player = newPlayer();
  state.thinking = false;
  changed();
}

/** Settings from the query: `mode`, `level`, `colour`, `seed`. */
function applyQuery(params) {
  const mode = params.get('mode');
  if (mode !== null) {
    if (!['solo', 'duo'].includes(mode)) {
      throw new Error(`invalid mode '${mode}': expected solo or duo`);
    }
    page.settings.elements.mode.value = mode;
  }
  const level = params.get('level');
  if (level !== null) {
    const number = Number(level);
    if (!state.grandMaitre.levels.some((l) => l.number === number) || !/^\d+$/.test(level)) {
      throw new Error(`invalid level '${level}': expected 1 to 10`);
    }
    page.level.value = String(number);
  } else {
    page.level.value = '5';
  }
  const colour = params.get('colour');
  if (colour !== null) {
    if (!['clair', 'fonce'].includes(colour)) {
      throw new Error(`invalid colour '${colour}': expected clair or fonce`);
    }
    page.settings.elements.colour.value = colour === 'fonce' ? '1' : '0';
  }
  const seed = params.get('seed');
  if (seed !== null) {
    if (!/^\d{1,15}$/.test(seed)) {
      throw new Error(`invalid seed '${seed}': expected a whole number`);
    }
    state.seed = Number(seed);
  } else {
    state.seed = Math.floor(Math.random() * 2 ** 31);
  }
}

/** Arrows move among the cells; letters are the buttons' shortcuts. */
function onKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || page.body.dataset.status === 'loading') {
    return;
  }
  const target = event.target;
  if (target instanceof HTMLSelectElement || target instanceof HTMLInputElement) {
    return;
  }
  const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
  if (event.key in moves && target.classList?.contains('cell')) {
    const [df, dr] = moves[event.key];
    const file = Math.min(SIZE - 1, Math.max(0, (state.focus % SIZE) + df));
    const rank = Math.min(SIZE - 1, Math.max(0, Math.floor(state.focus / SIZE) + dr));
    state.focus = cellAt(file, rank);
    state.cells.forEach((button, cell) => {
      button.tabIndex = cell === state.focus ? 0 : -1;
    });
    state.cells[state.focus].focus();
    event.preventDefault();
    return;
  }
  const shortcuts = {
    c: page.adviceButton,
    a: page.undoButton,
    p: page.passButton,
    n: page.newButton,
  };
  const button = shortcuts[event.key.toLowerCase()];
  if (button && !button.disabled) {
    button.click();
    event.preventDefault();
  }
}

async function main() {
  const params = new URLSearchParams(window.location.search);
  ort.env.wasm.numThreads = 1;
  const fetched = (name, read) =>
    fetch(name).then((response) => {
      if (!response.ok) {
        throw new Error(`${name} introuvable (${response.status})`);
      }
      return read(response);
    });
  const [description, model] = await Promise.all([
    fetched('model.json', (r) => r.json()),
    fetched('model.onnx', (r) => r.arrayBuffer()),
  ]);
  // The solution book, when the export has one: the bar and the Grand
  // Maître use it as the engine does.
  const bookFile = description.files?.book;
  const book = bookFile ? await fetched(bookFile, (r) => r.text()) : undefined;
  state.grandMaitre = await GrandMaitre.load(ort, { model, description, book }, { executionProviders: ['wasm'] });
  // The levels are the export's (model.json), as the engine plays them.
  buildLevels();
  applyQuery(params);
  state.game = state.grandMaitre.game;
  const start = params.get('position');
  state.start = start ? state.game.parsePosition(start) : Position.start();
  buildBoard();

  page.settings.addEventListener('submit', (event) => {
    event.preventDefault();
    newGame();
  });
  page.level.addEventListener('change', () => {
    if (state.mode === 'solo' && !state.thinking) {
      state.level = Number(page.level.value);
      state.player = newPlayer();
      render();
      // The bar reads who plays: another level, another bar.
      refreshBar().catch(showError);
    }
  });
  page.adviceButton.addEventListener('click', () => advise().catch(showError));
  page.passButton.addEventListener('click', () => humanPlays(PASS));
  page.undoButton.addEventListener('click', undo);
  document.addEventListener('keydown', onKey);
  page.newButton.disabled = false;
  newGame();
}

main().catch(showError);
