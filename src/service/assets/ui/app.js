// The gaps page: plain JavaScript, no build step, no external code. It only talks to
// this service's JSON API. Invariant: a job is submitted only for a position that the
// notation checks below accept (the same rules as the server); anything else is shown
// to the person, at the offending cell when there is one.
'use strict';

const RANKS = 'A23456789TJQK';
const SUITS = 'SHDCEFGI';
const SUIT_SYMBOLS = ['♠', '♥', '♦', '♣', '★', '✦', '●', '■'];
const SUIT_NAMES = ['spades', 'hearts', 'diamonds', 'clubs', 'suit E', 'suit F', 'suit G', 'suit I'];
const RANK_NAMES = ['ace', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'jack', 'queen', 'king'];
const FINISHED = ['done', 'failed', 'cancelled'];

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const fmt = (n) => (n == null ? '—' : Number(n).toLocaleString('en-US'));
const ms = (t) => (t < 10 ? t.toFixed(2) : fmt(Math.round(t)));

// ---------- Notation (docs/notation.md) ----------

const cardText = (c) => (c ? RANKS[c.r] + SUITS[c.s] : '--');
const formatGrid = (grid) => grid.map((row) => row.map(cardText).join(' ')).join('/');
const cellName = (r, c) => `row ${r + 1}, column ${c + 1}`;

class NotationError extends Error {
  constructor(message, row, col) {
    super(message);
    this.row = row;
    this.col = col;
  }
}

function parseToken(token) {
  if (token === '--' || token === '..') return null;
  const m = /^(10|[A2-9TJQK])([SHDCEFGI])$/i.exec(token);
  if (!m) return undefined;
  const rank = m[1] === '10' ? 9 : RANKS.indexOf(m[1].toUpperCase());
  return { r: rank, s: SUITS.indexOf(m[2].toUpperCase()) };
}

// Returns {grid, suits, ranks, tokens}; throws NotationError (with `tokens` for drawing).
function parseNotation(text) {
  const rows = text.split(/[/\n]/).map((r) => r.trim()).filter((r) => r !== '');
  const tokens = rows.map((r) => r.split(/\s+/));
  const fail = (msg, row, col) => {
    const e = new NotationError(msg, row, col);
    e.tokens = tokens;
    throw e;
  };
  if (rows.length === 0) fail('Enter a position or a deal.');
  const suits = rows.length;
  const ranks = tokens[0].length;
  tokens.forEach((row, r) => {
    if (row.length !== ranks) {
      fail(`Ragged rows: row ${r + 1} has ${row.length} cells but row 1 has ${ranks}.`, r, Math.min(row.length, ranks) - 1);
    }
  });
  if (suits > 8 || ranks < 3 || ranks > 13) {
    fail(`Size out of range: ${suits} suits × ${ranks} ranks (suits must be 1 to 8, ranks 3 to 13).`);
  }
  const seen = new Map();
  const grid = tokens.map((row, r) => row.map((t, c) => {
    const card = parseToken(t);
    if (card === undefined) fail(`Unknown token “${t}” at ${cellName(r, c)}: write a card like 7H or TD, or -- for a gap.`, r, c);
    if (card && (card.r >= ranks || card.s >= suits)) {
      fail(`${cardText(card)} at ${cellName(r, c)} is not in a ${suits} × ${ranks} deck.`, r, c);
    }
    if (card) {
      const key = cardText(card);
      if (seen.has(key)) fail(`Duplicate card ${key} at ${cellName(r, c)} (also at ${seen.get(key)}).`, r, c);
      seen.set(key, cellName(r, c));
    }
    return card;
  }));
  const gaps = grid.flat().filter((c) => c === null).length;
  const isDeal = gaps === 0;
  if (!isDeal) {
    grid.forEach((row, r) => row.forEach((card, c) => {
      if (card && card.r === 0) fail(`Ace ${cardText(card)} at ${cellName(r, c)}: a position with gaps has no aces (they are removed).`, r, c);
    }));
  }
  for (let s = 0; s < suits; s += 1) {
    for (let k = isDeal ? 0 : 1; k < ranks; k += 1) {
      const key = RANKS[k] + SUITS[s];
      if (!seen.has(key)) fail(`Missing card ${key}.`);
    }
  }
  if (!isDeal && gaps !== suits) fail(`Wrong number of gaps: a ${suits}-suit position has ${suits}, this one has ${gaps}.`);
  const position = isDeal ? grid.map((row) => row.map((c) => (c && c.r === 0 ? null : c))) : grid;
  return { grid: position, suits, ranks, tokens };
}

// A board of a PySolFC game played on its own board (`board:GAME`), as the server
// sends it: rows of cards and gaps, any width, Aces included (the server dealt it; the
// page does not check its deck).
const isBoardGame = (variant) => typeof variant === 'string' && variant.startsWith('board:');
function parseBoard(text) {
  return text.split('/').map((row) => row.trim().split(/\s+/).map((t) => {
    const card = parseToken(t);
    if (card === undefined) throw new Error(`Unknown token “${t}” on the board.`);
    return card;
  }));
}

// The grid of a position under `variant`: a board game's board, or notation.
const gridOf = (text, variant) => (isBoardGame(variant) ? parseBoard(text) : parseNotation(text).grid);

// PySolFC's `isGameWon` for a board game: every row holds the base rank (column 0's,
// the same in every row) and the next ones of one suit in all its cells but the last.
function isBoardWon(grid) {
  const base = grid[0][0] ? grid[0][0].r : -1;
  return grid.every((row) => row.every((c, k) => k === row.length - 1
    || (c && row[0] && c.s === row[0].s && c.r === base + k)));
}

function isWon(grid, variant) {
  if (isBoardGame(variant)) return isBoardWon(grid);
  const ranks = grid[0].length;
  return grid.every((row, r) => {
    const first = row[0];
    if (!first || first.r !== 1 || (variant === 'basic' && first.s !== r)) return false;
    return row.every((c, k) => (k === ranks - 1 ? c === null : c && c.s === first.s && c.r === k + 1));
  });
}

function applyMove(grid, move) {
  const next = grid.map((row) => row.slice());
  const [fr, fc] = move.from;
  const [tr, tc] = move.to;
  next[tr][tc] = next[fr][fc];
  next[fr][fc] = null;
  return next;
}

// A step of a solution for people: rows and columns counted from 1 (the API's from 0).
const moveText = (m) => (m.redeal
  ? `Redeal ${m.redeal}: the cards after each row's run gathered, shuffled and dealt again`
  : `${m.card} row ${m.from[0] + 1} col ${m.from[1] + 1} → row ${m.to[0] + 1} col ${m.to[1] + 1}`);

// ---------- API ----------

// The token given in the page's Token field (docs/http.md, "Tokens"), kept for this
// tab only, sent with every request once given.
const TOKEN_KEY = 'gaps-token';
const savedToken = () => sessionStorage.getItem(TOKEN_KEY) || '';

async function api(path, options = {}) {
  let res;
  const headers = { 'content-type': 'application/json' };
  if (savedToken()) headers.authorization = `Bearer ${savedToken()}`;
  try {
    res = await fetch(path, { headers, ...options });
  } catch (e) {
    throw new Error('The service did not answer. Is it still running?');
  }
  const body = await res.json().catch(() => null);
  if (res.status === 401) {
    $('token-form').hidden = false;
    throw new Error(savedToken()
      ? 'The service does not know this token: give another in the Token field at the top.'
      : 'This service asks for a token: give yours in the Token field at the top.');
  }
  if (!res.ok) {
    const detail = body && (body.detail || body.title);
    throw new Error(detail ? `The service refused this: ${detail}.` : `The service answered with error ${res.status}.`);
  }
  return body;
}

// ---------- Board ----------

// `game`: the PySolFC game last loaded ({game, number as decimal digits, variant, text});
// a search is sent as that game while the board still shows its position under its variant.
const state = { grid: null, selected: null, focus: [0, 0], job: null, replay: null, cursors: [], next: null, effort: [], game: null };

// The button of one cell of a board (also the play board's): a card, a gap, or the
// raw text of a token that did not parse.
function cellButton(cell, r, c) {
  const el = document.createElement('button');
  el.type = 'button';
  el.setAttribute('role', 'gridcell');
  el.dataset.row = r;
  el.dataset.col = c;
  if (typeof cell === 'string') {
    el.className = 'cell';
    el.textContent = cell;
    el.setAttribute('aria-label', `${cell}, ${cellName(r, c)}`);
  } else if (cell) {
    el.className = `cell s${cell.s}`;
    el.innerHTML = `<span>${esc(cardText(cell)[0] === 'T' ? '10' : cardText(cell)[0])}</span><span class="suit" aria-hidden="true">${SUIT_SYMBOLS[cell.s]}</span>`;
    el.setAttribute('aria-label', `${RANK_NAMES[cell.r]} of ${SUIT_NAMES[cell.s]}, ${cellName(r, c)}`);
    el.dataset.card = cardText(cell);
  } else {
    el.className = 'cell gap';
    el.textContent = '—';
    el.setAttribute('aria-label', `gap, ${cellName(r, c)}`);
    el.dataset.card = '--';
  }
  return el;
}

function renderBoard(grid, marks = {}) {
  // Redeals need a PySolFC game's generator: only for a game still on the board.
  $('redeals').disabled = !currentGame($('variant').value);
  drawGrid($('board'), grid, (el, r, c) => {
    const key = `${r},${c}`;
    if (marks.invalid === key) { el.classList.add('invalid'); el.setAttribute('aria-invalid', 'true'); }
    if (marks.moved === key) el.classList.add('moved');
    if (marks.from === key) el.classList.add('from');
    if (state.selected === key) { el.classList.add('selected'); el.setAttribute('aria-selected', 'true'); }
    el.tabIndex = state.focus[0] === r && state.focus[1] === c ? 0 : -1;
  });
}

// Draws `grid` into `board` as rows of cell buttons (nothing for no grid); `decorate`
// marks each cell's button.
function drawGrid(board, grid, decorate) {
  board.replaceChildren();
  if (!grid) return;
  board.style.setProperty('--cols', grid[0].length);
  grid.forEach((row, r) => {
    const rowEl = document.createElement('div');
    rowEl.setAttribute('role', 'row');
    row.forEach((cell, c) => {
      const el = cellButton(cell, r, c);
      decorate(el, r, c);
      rowEl.appendChild(el);
    });
    board.appendChild(rowEl);
  });
}

function setPosition(grid, message) {
  state.grid = grid;
  state.selected = null;
  state.focus = [0, 0];
  $('notation').value = formatGrid(grid);
  $('notation-error').textContent = '';
  stopReplay();
  state.replay = null;
  $('replay-section').hidden = true;
  renderBoard(grid);
  $('board-status').textContent = message || `${grid.length} × ${grid[0].length} position shown.`;
}

function showNotation() {
  // A board game's board, as loaded, is shown as it is (it is not notation to check).
  const g = state.game;
  if (g && g.board && $('notation').value === g.text) {
    setPosition(parseBoard(g.text), `PySolFC ${GAME_NAMES[g.game]} #${g.number} on its own board (${g.variant}).`);
    return true;
  }
  try {
    const parsed = parseNotation($('notation').value);
    setPosition(parsed.grid, `${parsed.suits} × ${parsed.ranks} position shown. It is valid.`);
    return true;
  } catch (e) {
    if (!(e instanceof NotationError)) throw e;
    $('notation-error').textContent = e.message;
    state.grid = null;
    const width = Math.max(...(e.tokens || [[]]).map((r) => r.length), 1);
    const raw = (e.tokens || []).map((row) => Array.from({ length: width }, (_, c) => row[c] ?? ''));
    renderBoard(raw.length ? raw : null, { invalid: e.row != null ? `${e.row},${e.col}` : null });
    $('board-status').textContent = 'The position has a problem; nothing was sent to the server.';
    return false;
  }
}

function onBoardClick(event) {
  const el = event.target.closest('.cell');
  if (!el || !state.grid || state.replay) return;
  const key = `${el.dataset.row},${el.dataset.col}`;
  state.focus = [Number(el.dataset.row), Number(el.dataset.col)];
  if (state.selected === null) {
    state.selected = key;
    $('board-status').textContent = `Selected ${el.getAttribute('aria-label')}. Choose the cell to swap it with.`;
  } else if (state.selected === key) {
    state.selected = null;
    $('board-status').textContent = 'Selection cleared.';
  } else {
    const [r1, c1] = state.selected.split(',').map(Number);
    const [r2, c2] = [state.focus[0], state.focus[1]];
    const grid = state.grid.map((row) => row.slice());
    [grid[r1][c1], grid[r2][c2]] = [grid[r2][c2], grid[r1][c1]];
    state.grid = grid;
    state.selected = null;
    $('notation').value = formatGrid(grid);
    $('board-status').textContent = `Swapped ${cellName(r1, c1)} and ${cellName(r2, c2)}.`;
  }
  renderBoard(state.grid);
  $('board').querySelector(`[data-row="${state.focus[0]}"][data-col="${state.focus[1]}"]`)?.focus();
}

function onBoardKey(event) {
  const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
  const d = moves[event.key];
  const cells = $('board').querySelectorAll('.cell');
  if (!d || cells.length === 0) return;
  event.preventDefault();
  const rows = $('board').children.length;
  const cols = cells.length / rows;
  const r = Math.min(rows - 1, Math.max(0, state.focus[0] + d[0]));
  const c = Math.min(cols - 1, Math.max(0, state.focus[1] + d[1]));
  state.focus = [r, c];
  cells.forEach((el) => { el.tabIndex = -1; });
  const target = $('board').querySelector(`[data-row="${r}"][data-col="${c}"]`);
  target.tabIndex = 0;
  target.focus();
}

async function loadDeal(event) {
  event.preventDefault();
  const seed = $('deal-seed').value.trim();
  const suits = Number($('deal-suits').value);
  const ranks = Number($('deal-ranks').value);
  const err = $('deal-error');
  err.textContent = '';
  if (!/^\d+$/.test(seed) || BigInt(seed) > 9223372036854775807n) {
    err.textContent = 'The deal number must be a whole number from 0 to 9223372036854775807.';
  } else if (!Number.isInteger(suits) || suits < 1 || suits > 8) {
    err.textContent = 'Suits must be a whole number from 1 to 8.';
  } else if (!Number.isInteger(ranks) || ranks < 3 || ranks > 13) {
    err.textContent = 'Ranks must be a whole number from 3 to 13.';
  }
  if (err.textContent) return;
  try {
    const d = await api(`/v1/deals/${seed}?suits=${suits}&ranks=${ranks}`);
    setPosition(parseNotation(d.position).grid, `Deal ${d.seed} (${d.suits} × ${d.ranks}) shown.`);
  } catch (e) {
    err.textContent = e.message;
  }
}

// PySolFC's titles of the games the engine solves (docs/pysol.md); the last four are
// played on their own boards (`board:GAME`), drawn as PySolFC shows them.
const GAME_NAMES = {
  montana: 'Montana', 'blue-moon': 'Blue Moon', spaces: 'Spaces', 'red-moon': 'Red Moon',
  paganini: 'Paganini', 'house-of-commons': 'House of Commons', 'line-up': 'Line Up',
  station: 'Station', galary: 'Galary', 'free-parking': 'Free Parking', jungle: 'Jungle',
  'spaces-and-aces': 'Spaces and Aces',
};

// PySolFC's largest game number (the API's bound too).
const PYSOL_MAX_NUMBER = 100000000000000000000n;

async function loadPysol(event) {
  event.preventDefault();
  const game = $('pysol-game').value;
  const number = $('pysol-number').value.trim();
  const err = $('pysol-error');
  err.textContent = '';
  if (!/^\d+$/.test(number) || BigInt(number) < 1n || BigInt(number) > PYSOL_MAX_NUMBER) {
    err.textContent = 'The game number must be a whole number from 1 to 10^20 (100000000000000000000).';
    return;
  }
  try {
    const g = await api(`/v1/pysol/${game}/${number}`);
    if (isBoardGame(g.variant)) {
      // Played on its own board: searched under its own rules, shown as PySolFC shows it.
      const grid = parseBoard(g.position);
      setPosition(grid, `PySolFC ${g.title} #${number} on its own board, under its own rules (${g.variant}).`);
      state.game = { game: g.game, number: BigInt(number).toString(), variant: g.variant, text: formatGrid(grid), board: true };
      $('redeals').disabled = false;
      $('redeals').value = String(g.redeals);
      return;
    }
    const grid = parseNotation(g.position).grid;
    // The engine plays a game on its own board renamed (docs/pysol.md): a Blue Moon
    // board without its Aces column, Line Up's and Paganini's ranks renumbered. The
    // board PySolFC shows is named beside it when it differs.
    const shown = g.board !== g.position ? ` (PySolFC shows it as ${g.board})` : '';
    // The number stays the digits typed: a JSON number above 2^53 loses digits in JavaScript.
    setPosition(grid, `PySolFC ${g.title} #${number} shown as its first round, ${g.variant}${shown}.`);
    $('variant').value = g.variant;
    state.game = { game: g.game, number: BigInt(number).toString(), variant: g.variant, text: formatGrid(grid) };
    // PySolFC plays each game with its own number of redeals; the page asks the same.
    $('redeals').disabled = false;
    $('redeals').value = String(g.redeals);
  } catch (e) {
    err.textContent = e.message;
  }
}

// ---------- Solve ----------

// The PySolFC game the board still shows under its variant, or null.
function currentGame(variant) {
  const g = state.game;
  if (!g || !state.grid || formatGrid(state.grid) !== g.text) return null;
  // A board game's rules are its own, whatever the variant chosen shows.
  return g.board || g.variant === variant ? g : null;
}

// The stored verdict of what is about to be searched, or null (nothing stored, or the
// lookup failed: neither is a reason not to search).
async function knownVerdict(game, position, variant) {
  const q = game
    ? new URLSearchParams({ pysol: `${game.game}:${game.number}` })
    : new URLSearchParams({ position, variant });
  try {
    const res = await fetch(`/v1/verdicts?${q}`);
    return res.ok ? await res.json() : null;
  } catch (e) {
    return null;
  }
}

// Shows a stored exact verdict as the answer: no job was created.
function showKnown(view) {
  state.job = null;
  $('job').hidden = false;
  $('job-id').textContent = `none (stored answer of job ${view.job_id})`;
  $('job-state').textContent = 'known answer, no search';
  $('job-verdict').textContent = view.verdict;
  $('job-nodes').textContent = `${fmt(view.nodes)} (when it was searched)`;
  $('job-time').textContent = `${ms(view.elapsed_ms)} ms (when it was searched)`;
  $('cancel').disabled = true;
  if (view.solution.length > 0) startReplay(view);
}

function readLimit(id, name) {
  const v = $(id).value.trim();
  if (v === '') return null;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new Error(`${name} must be a whole number of at least 1.`);
  return Number(v);
}

async function solve(event) {
  event.preventDefault();
  const err = $('solve-error');
  err.textContent = '';
  // A board game's board is the server's, kept as it was loaded (not notation).
  const onBoard = state.game && state.game.board && $('notation').value === state.game.text
    ? state.game : null;
  if (!onBoard && !showNotation()) {
    err.textContent = 'Fix the position first (see the message above the board).';
    return;
  }
  let limits;
  try {
    limits = {
      time_ms: readLimit('limit-time', 'The time limit'),
      nodes: readLimit('limit-nodes', 'The node limit'),
      probes: readLimit('limit-probes', 'The number of probes'),
      table_mb: readLimit('limit-table', 'The table size'),
    };
  } catch (e) {
    err.textContent = e.message;
    return;
  }
  Object.keys(limits).forEach((k) => limits[k] === null && delete limits[k]);
  const variant = $('variant').value;
  const position = formatGrid(state.grid);
  const game = currentGame(variant);
  // Only a game has the generator a redeal needs.
  const redeals = game ? Number($('redeals').value) : 0;
  // A stored exact verdict answers at once, without a job (stored verdicts of
  // positions are first-round ones).
  const known = redeals === 0 ? await knownVerdict(game, position, variant) : null;
  if (known && known.verdict !== 'unknown') {
    showKnown(known);
    return;
  }
  // A board game takes no variant, algorithm or probes: its rules and search are its own.
  if (onBoard) delete limits.probes;
  const body = onBoard ? { limits } : { variant, algorithm: $('algorithm').value, limits };
  // The game number goes as a string of its digits (exact above 2^53, where a
  // JavaScript number is not; the API takes either).
  if (game) Object.assign(body, { pysol: { game: game.game, number: game.number }, redeals });
  else body.position = position;
  const json = JSON.stringify(body);
  try {
    const job = await api('/v1/jobs', { method: 'POST', body: json });
    followJob(job);
  } catch (e) {
    err.textContent = e.message;
  }
}

function showJob(job) {
  $('job').hidden = false;
  $('job-id').textContent = job.id;
  $('job-state').textContent = job.state + (job.cached ? ' (known answer)' : '');
  $('job-verdict').textContent = job.verdict ? job.verdict + (job.stopped ? ` (stopped: ${job.stopped})` : '') : '—';
  const nodes = job.stats ? job.stats.nodes : job.progress ? job.progress.nodes : null;
  $('job-nodes').textContent = fmt(nodes);
  $('job-time').textContent = job.stats ? `${ms(job.stats.elapsed_ms)} ms` : '—';
  $('cancel').disabled = FINISHED.includes(job.state);
  if (job.error) $('solve-error').textContent = `The job failed: ${job.error}`;
}

// Follows `job` until it ends, `onView` called with each view (a progress event is
// merged into the last view): by its events (GET /v1/jobs/{id}/events) where the page
// can (an EventSource sends no token), else by waiting on it. Resolves to the ended
// job, or to the last view once `wanted()` is false.
function followEvents(job, onView, wanted = () => true) {
  const poll = async (j) => {
    while (!FINISHED.includes(j.state) && wanted()) {
      try {
        j = await api(`/v1/jobs/${j.id}?wait_ms=1000`);
      } catch (e) {
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if (wanted()) onView(j);
    }
    return j;
  };
  if (FINISHED.includes(job.state)) return Promise.resolve(job);
  if (typeof EventSource === 'undefined' || savedToken()) return poll(job);
  return new Promise((resolve) => {
    let last = job;
    const source = new EventSource(`/v1/jobs/${encodeURIComponent(job.id)}/events`);
    const seen = (view, ended) => {
      last = view;
      if (!wanted()) { source.close(); resolve(last); return; }
      onView(last);
      if (ended) { source.close(); resolve(last); }
    };
    source.addEventListener('state', (e) => seen(JSON.parse(e.data), false));
    source.addEventListener('progress', (e) => {
      const p = JSON.parse(e.data);
      seen({ ...last, state: p.state, progress: { nodes: p.nodes } }, false);
    });
    source.addEventListener('end', (e) => seen(JSON.parse(e.data), true));
    // Closed before the end (its time is up, or the service went away): waiting on the
    // job goes on from the last view.
    source.onerror = () => { source.close(); resolve(poll(last)); };
  });
}

async function followJob(job) {
  state.job = job.id;
  showJob(job);
  job = await followEvents(job, showJob, () => state.job === job.id);
  if (state.job === job.id && job.state === 'done') {
    if (job.solution && job.solution.length > 0) startReplay(job);
    loadHistory();
    loadStats();
  }
}

async function cancelJob() {
  if (!state.job) return;
  try {
    showJob(await api(`/v1/jobs/${state.job}`, { method: 'DELETE' }));
  } catch (e) {
    $('solve-error').textContent = e.message;
  }
}

// ---------- Replay ----------

function startReplay(job) {
  const base = gridOf(job.position, job.variant);
  state.grid = base;
  $('notation').value = job.position;
  // A redeal step `{"redeal": k}` goes on from the position that redeal dealt.
  const redealt = (job.stats && job.stats.rounds && job.stats.rounds.redealt) || [];
  state.replay = { base, moves: job.solution, redealt, at: 0, variant: job.variant, timer: null };
  const list = $('replay-moves');
  list.innerHTML = job.solution.map((m, i) => `<li><button type="button" data-step="${i + 1}">${esc(moveText(m))}</button></li>`).join('');
  $('replay-section').hidden = false;
  showStep(0);
}

function gridAt(step) {
  const rp = state.replay;
  return rp.moves.slice(0, step).reduce(
    (grid, m) => (m.redeal ? gridOf(rp.redealt[m.redeal - 1].position, rp.variant) : applyMove(grid, m)),
    rp.base,
  );
}

function showStep(step) {
  const rp = state.replay;
  rp.at = Math.max(0, Math.min(rp.moves.length, step));
  const grid = gridAt(rp.at);
  const last = rp.at > 0 ? rp.moves[rp.at - 1] : null;
  renderBoard(grid, last && !last.redeal ? { moved: last.to.join(','), from: last.from.join(',') } : {});
  const won = isWon(grid, rp.variant);
  const status = $('replay-status');
  // A redeal also names the cards it gathered (the talon, bottom to top); the board shows its deal.
  const gathered = last && last.redeal && rp.redealt[last.redeal - 1]
    ? ` — ${rp.redealt[last.redeal - 1].gathered.length} cards gathered: ${rp.redealt[last.redeal - 1].gathered.join(' ')}`
    : '';
  status.textContent = `Move ${rp.at} of ${rp.moves.length}` + (last ? `: ${moveText(last)}${gathered}` : ' (start)') + (won ? ' — won position reached.' : '');
  status.classList.toggle('won', won);
  $('replay-moves').querySelectorAll('li').forEach((li, i) => li.classList.toggle('current', i === rp.at - 1));
  if (rp.at === rp.moves.length) stopReplay();
}

function stopReplay() {
  if (state.replay && state.replay.timer) clearInterval(state.replay.timer);
  if (state.replay) state.replay.timer = null;
  $('replay-play').textContent = '▶ Play';
  $('replay-play').setAttribute('aria-label', 'Play');
}

function togglePlay() {
  const rp = state.replay;
  if (!rp) return;
  if (rp.timer) { stopReplay(); return; }
  if (rp.at === rp.moves.length) showStep(0);
  const speed = Number($('replay-speed').value);
  rp.timer = setInterval(() => showStep(rp.at + 1), 1000 / speed);
  $('replay-play').textContent = '■ Pause';
  $('replay-play').setAttribute('aria-label', 'Pause');
}

// Puts `text` on the clipboard (through a selected text area where the Clipboard API
// is refused).
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch (e) {
    const area = document.createElement('textarea');
    area.value = text;
    document.body.appendChild(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
}

async function copySolution() {
  const rp = state.replay;
  if (!rp) return;
  await copyText(rp.moves.map((m, i) => `${i + 1}. ${moveText(m)}`).join('\n'));
  $('replay-status').textContent = `Copied ${rp.moves.length} moves as text.`;
}

// ---------- History ----------

// What a job is of, in words: its PySolFC game, our numbered deal or a position, and
// its kind when it is not a Gaps search.
function jobSubject(j) {
  if (j.game === 'morpion') return `Morpion ${j.variant || ''}`.trim();
  const of = j.pysol ? `${GAME_NAMES[j.pysol.game] || j.pysol.game} #${j.pysol.number}`
    : j.deal ? `Deal ${j.deal.seed}` : 'Position';
  const n = j.played ? j.played.length : 0;
  const played = n > 0 ? `, ${n} step${n === 1 ? '' : 's'} played` : '';
  return j.game === 'odds' ? `Odds: ${of}${played}` : `${of}${played}`;
}

// A job's answer in a word: a Gaps verdict, an odds job's lower bound.
function jobAnswer(j) {
  if (j.game === 'odds') return j.odds ? `≥ ${Math.round(j.odds.lower.chance * 100)}%` : '—';
  return j.verdict || '—';
}

async function loadHistory(cursor) {
  // Jobs of every kind, unless a Gaps variant or verdict is asked (Gaps jobs then).
  const q = new URLSearchParams({ limit: '20' });
  for (const [id, name] of [['filter-state', 'state'], ['filter-variant', 'variant'], ['filter-verdict', 'verdict']]) {
    if ($(id).value) q.set(name, $(id).value);
  }
  if (cursor) q.set('cursor', cursor);
  let page;
  try {
    page = await api(`/v1/jobs?${q}`);
  } catch (e) {
    $('history').querySelector('tbody').innerHTML = `<tr><td colspan="9" class="error">${esc(e.message)}</td></tr>`;
    return;
  }
  state.next = page.next_cursor;
  const rows = page.jobs.map((j) => {
    const nodes = j.stats ? j.stats.nodes : j.nodes;
    const elapsed = j.stats ? j.stats.elapsed_ms : j.elapsed_ms;
    const open = j.game === 'gaps' ? `<button type="button" data-job="${esc(j.id)}" aria-label="Open job ${esc(j.id)}">Open</button>` : '';
    return `<tr><td>${esc(new Date(j.created_at).toLocaleString())}</td><td>${esc(jobSubject(j))}</td><td>${esc(j.variant || '—')}</td>`
      + `<td>${j.suits ? `${j.suits}×${j.ranks}` : '—'}</td><td>${esc(j.state)}</td><td>${esc(jobAnswer(j))}</td>`
      + `<td>${fmt(nodes)}</td><td>${elapsed != null ? ms(elapsed) : '—'}</td><td>${open}</td></tr>`;
  });
  $('history').querySelector('tbody').innerHTML = rows.join('') || '<tr><td colspan="9">No jobs yet.</td></tr>';
  $('history-older').disabled = !state.next;
  $('history-newer').disabled = state.cursors.length === 0;
}

async function openJob(id) {
  try {
    const job = await api(`/v1/jobs/${id}`);
    const grid = gridOf(job.position, job.variant);
    setPosition(grid, `Job ${job.id} loaded.`);
    // A board game's rules are not one of the variants the form offers: the game stays
    // loaded instead (its number kept where a JavaScript number holds it exactly, or
    // where the service gave it as digits: above 2^64-1).
    const number = job.pysol && job.pysol.number;
    if (isBoardGame(job.variant) && (Number.isSafeInteger(number) || (typeof number === 'string' && /^\d+$/.test(number)))) {
      state.game = { game: job.pysol.game, number: String(job.pysol.number), variant: job.variant, text: formatGrid(grid), board: true };
    }
    if (!isBoardGame(job.variant)) {
      $('variant').value = job.variant;
      $('algorithm').value = job.algorithm;
    }
    followJob(job);
    $('board-section').scrollIntoView();
  } catch (e) {
    $('solve-error').textContent = e.message;
  }
}

// ---------- Statistics ----------

// What a win-rate row counts: every distinct position, or the numbers of a PySolFC game.
function sourceName(source) {
  const game = source.startsWith('pysol-') ? GAME_NAMES[source.slice(6)] : null;
  return game ? `PySolFC ${game} games` : 'distinct positions';
}

function winRateChart(rows) {
  if (rows.length === 0) return '<p>No finished jobs yet.</p>';
  const W = 640, left = 150, right = 20, rowH = 34, top = 24;
  const H = top + rows.length * rowH + 10;
  const x = (v) => left + v * (W - left - right);
  let svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="Win rate chart">`;
  for (let t = 0; t <= 10; t += 2) {
    svg += `<line class="grid" x1="${x(t / 10)}" x2="${x(t / 10)}" y1="${top - 6}" y2="${H - 6}"/><text x="${x(t / 10)}" y="14" text-anchor="middle">${t * 10}%</text>`;
  }
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    const label = r.source === 'positions' ? `${r.variant} ${r.suits}×${r.ranks}` : `PySolFC ${GAME_NAMES[r.source.slice(6)] || r.source}`;
    svg += `<text x="${left - 8}" y="${y + 19}" text-anchor="end">${esc(`${label} (${r.deals})`)}</text>`;
    svg += `<rect class="band" x="${x(r.unknown_as_loss_low)}" y="${y + 4}" width="${Math.max(1, x(r.unknown_as_win_high) - x(r.unknown_as_loss_low))}" height="22"/>`;
    svg += `<rect class="bar" x="${x(0)}" y="${y + 9}" width="${Math.max(1, x(r.win_rate) - x(0))}" height="12"><title>${esc(`${(r.win_rate * 100).toFixed(1)}%`)}</title></rect>`;
    svg += `<line class="whisker" x1="${x(r.ci95_low)}" x2="${x(r.ci95_high)}" y1="${y + 15}" y2="${y + 15}"/>`;
    svg += `<line class="whisker" x1="${x(r.ci95_low)}" x2="${x(r.ci95_low)}" y1="${y + 9}" y2="${y + 21}"/><line class="whisker" x1="${x(r.ci95_high)}" x2="${x(r.ci95_high)}" y1="${y + 9}" y2="${y + 21}"/>`;
  });
  return `${svg}</svg>`;
}

// `values` (all above 0: a log scale has no place for 0) in bins of half a decade.
function histogram(values, unit) {
  if (values.length === 0) return '<p>No finished jobs with statistics yet.</p>';
  const logs = values.map((v) => Math.log10(v));
  const lo = Math.floor(Math.min(...logs));
  const hi = Math.max(lo + 1, Math.ceil(Math.max(...logs) + 1e-9));
  const bins = Array((hi - lo) * 2).fill(0);
  logs.forEach((l) => { bins[Math.min(bins.length - 1, Math.floor((l - lo) * 2))] += 1; });
  const W = 640, H = 220, left = 40, bottom = 40, top = 10;
  const bw = (W - left - 10) / bins.length;
  const max = Math.max(...bins);
  let svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="Histogram of ${esc(unit)} over ${values.length} jobs">`;
  svg += `<line class="axis" x1="${left}" x2="${W - 10}" y1="${H - bottom}" y2="${H - bottom}"/>`;
  svg += `<text x="${left - 6}" y="${top + 10}" text-anchor="end">${max}</text><text x="${left - 6}" y="${H - bottom}" text-anchor="end">0</text>`;
  bins.forEach((n, i) => {
    const h = (n / max) * (H - bottom - top);
    if (n > 0) svg += `<rect class="bar" x="${left + i * bw + 1}" y="${H - bottom - h}" width="${bw - 2}" height="${h}"><title>${n} jobs</title></rect>`;
    if (i % 2 === 0) svg += `<text x="${left + i * bw}" y="${H - bottom + 16}" text-anchor="middle">${esc(`1e${lo + i / 2}`)}</text>`;
  });
  svg += `<text x="${(W + left) / 2}" y="${H - 6}" text-anchor="middle">${esc(unit)} (log scale)</text>`;
  return `${svg}</svg>`;
}

async function loadStats() {
  try {
    const rows = await api('/v1/stats/win-rates');
    $('winrate-chart').innerHTML = winRateChart(rows);
    $('winrates').querySelector('tbody').innerHTML = rows.map((r) => `<tr><td>${esc(sourceName(r.source))}</td><td>${esc(r.variant)}</td><td>${r.suits}×${r.ranks}</td>`
      + `<td>${fmt(r.deals)}</td><td>${fmt(r.solvable)}</td><td>${fmt(r.unsolvable)}</td><td>${fmt(r.unknown)}</td>`
      + `<td>${(r.win_rate * 100).toFixed(1)}%</td><td>${(r.ci95_low * 100).toFixed(1)}% – ${(r.ci95_high * 100).toFixed(1)}%</td></tr>`).join('')
      || '<tr><td colspan="9">No finished jobs yet.</td></tr>';
    const page = await api('/v1/jobs?game=gaps&state=done&limit=500');
    state.effort = page.jobs.filter((j) => j.stats).map((j) => j.stats);
    renderEffort();
  } catch (e) {
    $('winrate-chart').innerHTML = `<p class="error">${esc(e.message)}</p>`;
  }
}

// Draws the effort histogram from the jobs last fetched (switching the measure needs no request).
function renderEffort() {
  const measure = $('effort-measure').value;
  const all = state.effort.map((s) => (measure === 'ms' ? s.elapsed_ms : s.nodes));
  // A job answered from the store searched nothing (0 nodes, about 0 ms): it is counted
  // apart rather than drawn as a bar at the scale's bottom.
  const values = all.filter((v) => v > 0);
  const none = all.length - values.length;
  $('effort-chart').innerHTML = histogram(values, measure === 'ms' ? 'milliseconds per job' : 'nodes per job');
  $('effort-caption').textContent = `Search effort of the last ${values.length} finished jobs that searched (${measure === 'ms' ? 'time' : 'nodes'}), on a logarithmic scale`
    + (none > 0 ? `; ${none} more searched nothing (answered from the store, or won at the deal).` : '.');
}

// ---------- Wiring ----------

document.addEventListener('DOMContentLoaded', () => {
  $('deal-form').addEventListener('submit', loadDeal);
  $('pysol-form').addEventListener('submit', loadPysol);
  $('notation-form').addEventListener('submit', (e) => { e.preventDefault(); showNotation(); });
  $('board').addEventListener('click', onBoardClick);
  $('board').addEventListener('keydown', onBoardKey);
  $('solve-form').addEventListener('submit', solve);
  $('cancel').addEventListener('click', cancelJob);
  $('replay-start').addEventListener('click', () => { stopReplay(); showStep(0); });
  $('replay-back').addEventListener('click', () => { stopReplay(); showStep(state.replay.at - 1); });
  $('replay-forward').addEventListener('click', () => { stopReplay(); showStep(state.replay.at + 1); });
  $('replay-end').addEventListener('click', () => { stopReplay(); showStep(state.replay.moves.length); });
  $('replay-play').addEventListener('click', togglePlay);
  $('replay-copy').addEventListener('click', copySolution);
  $('replay-speed').addEventListener('input', (e) => {
    e.target.setAttribute('aria-valuetext', `${e.target.value} moves per second`);
    if (state.replay && state.replay.timer) { stopReplay(); togglePlay(); }
  });
  $('replay-moves').addEventListener('click', (e) => {
    const step = e.target.closest('[data-step]');
    if (step) { stopReplay(); showStep(Number(step.dataset.step)); }
  });
  $('history-form').addEventListener('submit', (e) => { e.preventDefault(); state.cursors = []; state.current = null; loadHistory(); });
  $('history-older').addEventListener('click', () => { state.cursors.push(state.current || null); state.current = state.next; loadHistory(state.next); });
  $('history-newer').addEventListener('click', () => { state.current = state.cursors.pop(); loadHistory(state.current); });
  $('history').addEventListener('click', (e) => {
    const b = e.target.closest('[data-job]');
    if (b) openJob(b.dataset.job);
  });
  $('stats-refresh').addEventListener('click', loadStats);
  $('token-form').hidden = !savedToken();
  $('token').value = savedToken();
  $('token-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const token = $('token').value.trim();
    if (token) sessionStorage.setItem(TOKEN_KEY, token); else sessionStorage.removeItem(TOKEN_KEY);
    $('token-status').textContent = token ? 'Token kept for this tab: sent with every request.' : 'No token.';
  });
  $('effort-measure').addEventListener('change', renderEffort);
  loadDeal(new Event('submit'));
  loadHistory();
  loadStats();
});
