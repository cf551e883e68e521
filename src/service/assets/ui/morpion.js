// The Morpion page: plain JavaScript, no build step, no external code. It reads a
// record (MSR JSON or Pentasol text, read as the engine reads them: docs/morpion.md),
// draws the cross, the kept moves and the rest of the record, submits the proof as a
// job (`"game": "morpion"`), follows it and draws the longest continuation it returns.
// Invariant: the server decides legality; the page only draws what it parsed, and shows
// the server's refusal as it is.
'use strict';

const FINISHED = ['done', 'failed', 'cancelled'];
const CELL = 16;
const DELTA = { H: [1, 0], V: [0, 1], DP: [1, -1], DN: [1, 1] };
const SYMBOL_DIR = { '-': 'H', '|': 'V', '/': 'DP', '\\': 'DN' };
const SVG = 'http://www.w3.org/2000/svg';

const $ = (id) => document.getElementById(id);
const fmt = (n) => (n == null ? '—' : Number(n).toLocaleString('en-US'));
const state = { job: null, following: null, found: [], format: 'msr', reference: [3, 3] };

// ---------- Records ----------

// The 36 dots of the Greek cross, in record coordinates (0..9).
function cross() {
  const dots = [];
  const arm = (v) => v >= 3 && v <= 6;
  const outside = (v) => v <= 3 || v >= 6;
  for (let y = 0; y <= 9; y += 1) {
    for (let x = 0; x <= 9; x += 1) {
      if (((y === 0 || y === 9) && arm(x)) || ((x === 0 || x === 9) && arm(y))
          || ((x === 3 || x === 6) && outside(y)) || ((y === 3 || y === 6) && outside(x))) {
        dots.push([x, y]);
      }
    }
  }
  return dots;
}

// One Pentasol move line `(c,r) D ±n` as an MSR move, the cross's north-west inner
// corner at `reference`; null if the line is not one.
function pentasolMove(line, reference) {
  const m = /^\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)\s*([-|/\\])\s*([+-]?\d+)?\s*$/.exec(line.trim());
  if (!m) return null;
  const centre = m[4] ? parseInt(m[4], 10) : 0;
  return {
    x: parseInt(m[1], 10) - reference[0] + 3,
    y: parseInt(m[2], 10) - reference[1] + 3,
    dir: SYMBOL_DIR[m[3]],
    pos: 2 - centre,
  };
}

// The moves of a record text, with its format (`msr` or `pentasol`).
function parseRecord(text) {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const record = JSON.parse(trimmed);
    if (!Array.isArray(record.moves)) throw new Error('an MSR record has a "moves" list');
    return { format: 'msr', moves: record.moves, reference: [3, 3], variant: record.variant };
  }
  let reference = null;
  const moves = [];
  for (const raw of trimmed.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const point = /^\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)$/.exec(line);
    if (point && reference === null && moves.length === 0) {
      reference = [parseInt(point[1], 10), parseInt(point[2], 10)];
      continue;
    }
    const move = pentasolMove(line, reference || [3, 3]);
    if (!move) throw new Error(`not a Pentasol move: ${line}`);
    moves.push(move);
  }
  return { format: 'pentasol', moves, reference: reference || [3, 3], variant: null };
}

// A line of the answer (MSR objects or Pentasol strings) as MSR moves.
function lineMoves(line) {
  return line.map((m) => (typeof m === 'string' ? pentasolMove(m, state.reference) : m))
    .filter(Boolean);
}

// ---------- Drawing ----------

function element(name, attrs) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function segment(m) {
  const [dx, dy] = DELTA[m.dir] || [0, 0];
  const sx = m.x - m.pos * dx;
  const sy = m.y - m.pos * dy;
  return [sx, sy, sx + 4 * dx, sy + 4 * dy];
}

// Draws the cross, the kept moves, the record's rest and the continuation found.
function draw(moves, from, found) {
  const svg = $('m-grid');
  const title = $('m-grid-title');
  svg.replaceChildren(title);
  // `first`: the number of the layer's first move in the game.
  const layers = [
    { moves: moves.slice(0, from), line: 'kept', dot: 'kept-dot', first: 1 },
    { moves: found.length ? [] : moves.slice(from), line: 'rest', dot: 'rest-dot', first: from + 1 },
    { moves: found, line: 'found', dot: 'found-dot', first: from + 1 },
  ];
  const points = cross();
  for (const layer of layers) {
    for (const m of layer.moves) {
      const [sx, sy, ex, ey] = segment(m);
      points.push([sx, sy], [ex, ey]);
    }
  }
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const [minX, maxX, minY, maxY] = [Math.min(...xs) - 1, Math.max(...xs) + 1,
    Math.min(...ys) - 1, Math.max(...ys) + 1];
  const at = (x, y) => [(x - minX) * CELL, (y - minY) * CELL];
  const [width, height] = at(maxX, maxY);
  svg.setAttribute('width', width);
  svg.setAttribute('height', height);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  for (let x = minX; x <= maxX; x += 1) {
    const [px] = at(x, 0);
    svg.append(element('line', { class: 'grid-line', x1: px, y1: 0, x2: px, y2: height }));
  }
  for (let y = minY; y <= maxY; y += 1) {
    const [, py] = at(0, y);
    svg.append(element('line', { class: 'grid-line', x1: 0, y1: py, x2: width, y2: py }));
  }
  for (const [x, y] of cross()) {
    const [cx, cy] = at(x, y);
    svg.append(element('circle', { class: 'cross', cx, cy, r: 3.5 }));
  }
  for (const layer of layers) {
    for (const [i, m] of layer.moves.entries()) {
      const number = layer.first + i;
      const [sx, sy, ex, ey] = segment(m);
      const [x1, y1] = at(sx, sy);
      const [x2, y2] = at(ex, ey);
      svg.append(element('line', { class: layer.line, x1, y1, x2, y2 }));
      const [cx, cy] = at(m.x, m.y);
      const dot = element('circle', { class: layer.dot, cx, cy, r: 3.5, 'data-move': number });
      const label = element('title', {});
      label.textContent = `move ${number}`;
      dot.append(label);
      svg.append(dot);
    }
  }
  const kept = Math.min(from, moves.length);
  title.textContent = `The grid: the cross, ${kept} kept moves, `
    + (found.length ? `and a continuation of ${found.length} moves` : `and the record's ${moves.length - kept} moves after them`);
}

// Draws what the form holds now (no answer yet); false if the record does not parse.
function drawForm() {
  const text = $('m-record').value;
  $('m-error').textContent = '';
  if (!text.trim()) {
    draw([], 0, []);
    return false;
  }
  try {
    const record = parseRecord(text);
    state.format = record.format;
    state.reference = record.reference;
    const from = Math.max(0, parseInt($('m-from').value, 10) || 0);
    draw(record.moves, Math.min(from, record.moves.length), state.found);
    return true;
  } catch (e) {
    $('m-error').textContent = `The record does not read: ${e.message}`;
    return false;
  }
}

// ---------- Jobs ----------

async function api(path, options = {}) {
  const res = await fetch(path, {
    ...options,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.detail || body.title || `HTTP ${res.status}`);
  return body;
}

function showJob(job) {
  state.job = job;
  $('m-job').hidden = false;
  $('m-job-id').textContent = job.id;
  const progress = job.progress ? ` (${fmt(job.progress.nodes)} nodes so far)` : '';
  $('m-state').textContent = job.state + progress;
  if (job.best != null) {
    const how = job.proved ? 'proved optimal' : `not proved (${job.stopped || 'incomplete'})`;
    $('m-answer').textContent = `${job.best} moves, ${how}`;
  } else {
    $('m-answer').textContent = job.error ? `failed: ${job.error}` : '—';
  }
  $('m-nodes-count').textContent = fmt(job.nodes);
  $('m-elapsed').textContent = job.elapsed_ms == null ? '—' : `${(job.elapsed_ms / 1000).toFixed(2)} s`;
  $('m-cancel').disabled = FINISHED.includes(job.state);
  if (job.line) {
    state.found = lineMoves(job.line);
    const kept = job.from;
    $('m-summary').textContent = job.proved
      ? `Keeping the first ${kept} moves, no game is longer than ${job.best} moves${job.improved ? ' — longer than the record!' : ''}.`
      : `Keeping the first ${kept} moves, the longest game found has ${job.best} moves; the search did not finish.`;
    drawForm();
  }
}

async function follow(id) {
  state.following = id;
  while (state.following === id) {
    const job = await api(`/v1/jobs/${encodeURIComponent(id)}?wait_ms=1000`);
    if (state.following !== id) return;
    showJob(job);
    if (FINISHED.includes(job.state)) return;
  }
}

function limit(id) {
  const value = $(id).value.trim();
  return value ? Number(value) : undefined;
}

async function prove(event) {
  event.preventDefault();
  state.found = [];
  $('m-summary').textContent = '';
  if (!drawForm()) {
    if (!$('m-error').textContent) $('m-error').textContent = 'Give a record first.';
    return;
  }
  const body = {
    game: 'morpion',
    record: $('m-record').value,
    from: Number($('m-from').value),
    limits: { time_ms: limit('m-time'), nodes: limit('m-nodes'), threads: limit('m-threads') },
  };
  if ($('m-variant').value) body.variant = $('m-variant').value;
  $('m-prove').disabled = true;
  try {
    const job = await api('/v1/jobs', { method: 'POST', body: JSON.stringify(body) });
    showJob(job);
    await follow(job.id);
  } catch (e) {
    $('m-error').textContent = e.message;
  } finally {
    $('m-prove').disabled = false;
  }
}

async function cancel() {
  if (!state.job) return;
  try {
    showJob(await api(`/v1/jobs/${encodeURIComponent(state.job.id)}`, { method: 'DELETE' }));
  } catch (e) {
    $('m-error').textContent = e.message;
  }
}

async function loadSample(name, from) {
  const res = await fetch(`/ui/morpion/${name}.json`);
  $('m-record').value = await res.text();
  $('m-from').value = from;
  state.found = [];
  $('m-summary').textContent = '';
  drawForm();
}

document.addEventListener('DOMContentLoaded', () => {
  $('m-form').addEventListener('submit', prove);
  $('m-cancel').addEventListener('click', cancel);
  $('m-bruneau').addEventListener('click', () => loadSample('bruneau170', 150));
  $('m-rosin').addEventListener('click', () => loadSample('rosin178', 160));
  $('m-record').addEventListener('input', () => { state.found = []; drawForm(); });
  $('m-from').addEventListener('input', () => { state.found = []; drawForm(); });
  drawForm();
});
