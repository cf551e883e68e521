// The play board of the gaps page: play a deal (a PySolFC game by number, one of our
// numbered deals, or a position typed above) by clicking a card and then a gap,
// redeal, undo; after every step
// the service says whether the game can still be won (a job with `played`, answered
// from the store when asked before), gives the next step on request, and after a loss
// finds where it was lost (a job with `"review": true`). The link holds the game and
// the steps played, so a game can be shared and reopened as it was.
// Invariant: the page never judges a step itself: the service checks every step (a 422
// names why), and the board after a redeal is the one the service dealt.
// Uses app.js's helpers ($, api, esc, drawGrid, cardText, parseBoard, parseNotation,
// GAME_NAMES).
'use strict';

const PLAY_TIME_MS = 3000;

const play = {
  source: null, // {kind: 'pysol', game, number}, {kind: 'deal', seed, suits, ranks} or {kind: 'position', notation}
  variant: null,
  redeals: 0,
  start: null, // the grid at the deal (the board the game is shown on)
  grid: null,
  steps: [],
  selected: null,
  answer: null, // the last job answered for the current steps
  review: null, // the review of the current steps, once lost
  asked: 0, // a counter: a late answer for older steps is dropped
};

// ---------- The link ----------

const stepCode = (s) => (s.redeal ? `R${s.redeal}` : `${s.card}.${s.from.join('.')}.${s.to.join('.')}`);
function stepOf(code) {
  const r = /^R(\d)$/.exec(code);
  if (r) return { redeal: Number(r[1]) };
  const m = /^([0-9A-Z]{2,3})\.(\d+)\.(\d+)\.(\d+)\.(\d+)$/i.exec(code);
  if (!m) throw new Error(`Not a step: “${code}”.`);
  return { card: m[1].toUpperCase(), from: [Number(m[2]), Number(m[3])], to: [Number(m[4]), Number(m[5])] };
}
const sourceCode = (s) => (s.kind === 'pysol' ? `pysol:${s.game}:${s.number}`
  : s.kind === 'position' ? `position:${s.notation}` : `deal:${s.suits}x${s.ranks}:${s.seed}`);

function writeLink() {
  const q = new URLSearchParams({ play: sourceCode(play.source), redeals: String(play.redeals) });
  if (play.source.kind !== 'pysol') q.set('variant', play.variant);
  q.set('steps', play.steps.map(stepCode).join('~'));
  history.replaceState(null, '', `#${q}`);
  $('play-link').href = location.href;
}

// The game a link names, or null.
function readLink() {
  const q = new URLSearchParams(location.hash.slice(1));
  const what = q.get('play');
  if (!what) return null;
  const p = /^pysol:([a-z-]+):(\d+)$/.exec(what);
  const d = /^deal:(\d)x(\d+):(\d+)$/.exec(what);
  const t = /^position:(.+)$/s.exec(what);
  const source = p ? { kind: 'pysol', game: p[1], number: p[2] }
    : d ? { kind: 'deal', suits: Number(d[1]), ranks: Number(d[2]), seed: d[3] }
      : t ? { kind: 'position', notation: t[1] } : null;
  if (!source) throw new Error(`The link names no game (“${what}”).`);
  const steps = (q.get('steps') || '').split('~').filter((s) => s !== '').map(stepOf);
  const redeals = q.has('redeals') ? Number(q.get('redeals')) : null;
  return { source, steps, redeals, variant: q.get('variant') || 'common' };
}

// ---------- The board ----------

function renderPlay(marks = {}) {
  drawGrid($('play-board'), play.grid, (el, r, c) => {
    const key = `${r},${c}`;
    if (play.selected === key) { el.classList.add('selected'); el.setAttribute('aria-selected', 'true'); }
    if (marks.from === key) el.classList.add('from');
    if (marks.to === key) el.classList.add('moved');
  });
  if (!play.grid) return;
  const used = play.steps.filter((s) => s.redeal).length;
  $('play-redeal').disabled = used >= play.redeals;
  $('play-redeal').textContent = `Redeal (${play.redeals - used} left)`;
  $('play-undo').disabled = play.steps.length === 0;
  $('play-steps').textContent = `${play.steps.length} step${play.steps.length === 1 ? '' : 's'} played`;
}

// A board or position as the service writes it (cards and `--`, any width).
const gridOfText = (text) => parseBoard(text);

// ---------- Asking the service ----------

function jobBody(steps, review) {
  const body = { redeals: play.redeals, played: steps, limits: { time_ms: PLAY_TIME_MS } };
  if (review) body.review = true;
  // A game number goes as a string of its digits (the API takes either).
  if (play.source.kind === 'pysol') body.pysol = { game: play.source.game, number: play.source.number };
  else if (play.source.kind === 'position') Object.assign(body, { position: play.source.notation, variant: play.variant });
  else Object.assign(body, { deal: { seed: 0, suits: play.source.suits, ranks: play.source.ranks }, variant: play.variant });
  // Numbers go in as their digits (exact above 2^53, where a JavaScript number is not).
  let json = JSON.stringify(body);
  if (play.source.kind === 'deal') json = json.replace('"seed":0,', `"seed":${play.source.seed},`);
  return json;
}

async function finished(job) {
  while (!FINISHED.includes(job.state)) job = await api(`/v1/jobs/${job.id}?wait_ms=2000`);
  return job;
}

// The service's answer about `steps` (a refused step throws the service's reason).
async function ask(steps, review = false) {
  const job = await api('/v1/jobs?wait_ms=10000', { method: 'POST', body: jobBody(steps, review) });
  return finished(job);
}

function say(text, kind = '') {
  const el = $('play-verdict');
  el.textContent = text;
  el.className = `verdict ${kind}`;
}

// Shows the answer about the current steps (`posted`: a job already asked about them),
// and once lost, where it was lost.
async function judge(posted = null) {
  const asked = ++play.asked;
  play.answer = null;
  play.review = null;
  $('play-hint').disabled = true;
  $('play-where').hidden = true;
  $('play-line').hidden = true;
  say('Thinking…');
  let job;
  try {
    job = posted ? await finished(posted) : await ask(play.steps);
  } catch (e) {
    if (asked === play.asked) say(e.message, 'lost');
    return;
  }
  if (asked !== play.asked) return;
  play.answer = job;
  const board = job.played_board || job.played_position;
  if (board) { play.grid = gridOfText(board); renderPlay(); }
  if (job.verdict === 'solvable') {
    const won = job.solution.length === 0;
    say(won ? 'Won!' : 'Can still be won.', 'winnable');
    $('play-hint').disabled = won;
  } else if (job.verdict === 'unsolvable') {
    say('Lost: no line wins from here. Finding where it was lost…', 'lost');
    findWhere(asked);
  } else {
    say('Not known yet: the search ran out of time.', 'unknown');
  }
}

async function findWhere(asked) {
  let job;
  try {
    job = await ask(play.steps, true);
  } catch (e) {
    if (asked === play.asked) say(e.message, 'lost');
    return;
  }
  if (asked !== play.asked) return;
  const r = job.review;
  play.review = r;
  if (r && r.lost_from_start) {
    say('Lost since the deal: no line ever won this game.', 'lost');
  } else if (r && r.fatal_step != null) {
    say(`Lost since step ${r.fatal_step + 1}: before it the game could still be won.`, 'lost');
    $('play-where').hidden = false;
  } else {
    say('Lost; where is not known yet (the search ran out of time).', 'lost');
  }
}

// ---------- Playing ----------

async function tryStep(step) {
  const steps = [...play.steps, step];
  try {
    // The service checks the step (a refusal throws its reason); the job it starts
    // answers about the game after it.
    const job = await api('/v1/jobs?wait_ms=10000', { method: 'POST', body: jobBody(steps, false) });
    play.steps = steps;
    if (!step.redeal) play.grid = applyMove(play.grid, step);
    play.selected = null;
    renderPlay(step.redeal ? {} : { from: step.from.join(','), to: step.to.join(',') });
    writeLink();
    $('play-error').textContent = '';
    await judge(job);
  } catch (e) {
    $('play-error').textContent = e.message;
    play.selected = null;
    renderPlay();
  }
}

function onPlayClick(event) {
  const el = event.target.closest('.cell');
  if (!el || !play.grid) return;
  const r = Number(el.dataset.row);
  const c = Number(el.dataset.col);
  const key = `${r},${c}`;
  if (play.selected === null) {
    if (el.dataset.card === '--') {
      $('play-error').textContent = 'Choose a card first, then the gap it goes to.';
      return;
    }
    play.selected = key;
    $('play-error').textContent = '';
    renderPlay();
    return;
  }
  if (play.selected === key) { play.selected = null; renderPlay(); return; }
  const [fr, fc] = play.selected.split(',').map(Number);
  const card = cardText(play.grid[fr][fc]);
  tryStep({ card, from: [fr, fc], to: [r, c] });
}

function redealStep() {
  const used = play.steps.filter((s) => s.redeal).length;
  tryStep({ redeal: used + 1 });
}

async function undo() {
  if (play.steps.length === 0) return;
  play.steps = play.steps.slice(0, -1);
  play.grid = replayLocally(play.steps) || play.grid;
  renderPlay();
  writeLink();
  await judge();
}

// The board after `steps` when they hold no redeal (else null: the service's board is
// taken when it answers).
function replayLocally(steps) {
  if (steps.some((s) => s.redeal)) return null;
  return steps.reduce(applyMove, play.start);
}

function showHint() {
  const job = play.answer;
  const hint = job && (job.board_hint || job.hint);
  if (!hint) return;
  if (hint.redeal) {
    $('play-error').textContent = `Hint: redeal (redeal ${hint.redeal}).`;
    return;
  }
  $('play-error').textContent = `Hint: ${hint.card} from ${cellName(hint.from[0], hint.from[1])} to ${cellName(hint.to[0], hint.to[1])}.`;
  renderPlay({ from: hint.from.join(','), to: hint.to.join(',') });
}

// Back to just before the fatal step, with the line that would have won from there.
async function whereLost() {
  const r = play.review;
  if (!r || r.fatal_step == null) return;
  const line = r.board_winning_line || r.winning_line || [];
  play.steps = play.steps.slice(0, r.fatal_step);
  play.grid = replayLocally(play.steps) || play.grid;
  renderPlay();
  writeLink();
  await judge();
  $('play-line').hidden = false;
  $('play-line-title').textContent = `Step ${r.fatal_step + 1} lost the game. From here this would have won (${line.length} steps):`;
  $('play-line-steps').innerHTML = line.map((m) => `<li>${esc(moveText(m))}</li>`).join('');
}

// ---------- Loading a game ----------

async function startGame(source, options = {}) {
  const err = $('play-error');
  err.textContent = '';
  try {
    if (source.kind === 'pysol') {
      const g = await api(`/v1/pysol/${source.game}/${source.number}`);
      play.start = parseBoard(g.board);
      play.variant = g.variant;
      play.redeals = options.redeals ?? g.redeals;
      $('play-what').textContent = `PySolFC ${g.title} #${source.number}`;
    } else if (source.kind === 'position') {
      // A position alone has no generator to redeal with: no redeal.
      const parsed = parseNotation(source.notation);
      play.start = parsed.grid;
      play.variant = options.variant || 'common';
      play.redeals = 0;
      $('play-what').textContent = `A ${parsed.suits} × ${parsed.ranks} position (${play.variant})`;
    } else {
      const d = await api(`/v1/deals/${source.seed}?suits=${source.suits}&ranks=${source.ranks}`);
      play.start = parseNotation(d.position).grid;
      play.variant = options.variant || 'common';
      play.redeals = options.redeals ?? 0;
      $('play-what').textContent = `Deal ${source.seed} (${source.suits} × ${source.ranks}, ${play.variant})`;
    }
  } catch (e) {
    err.textContent = e.message;
    return;
  }
  play.source = source;
  play.steps = options.steps || [];
  play.grid = replayLocally(play.steps) || play.start;
  play.selected = null;
  play.answer = null;
  play.asked += 1;
  $('play-where').hidden = true;
  $('play-line').hidden = true;
  $('play-hint').disabled = true;
  renderPlay();
  writeLink();
  if (play.steps.length > 0) {
    await judge();
  } else {
    say('Make a move: after each step this says whether the game can still be won.');
  }
}

function newGame(event) {
  if (event) event.preventDefault();
  const game = $('play-game').value;
  let number = $('play-number').value.trim();
  if (number === '') {
    number = String(1 + Math.floor(Math.random() * 31999));
    $('play-number').value = number;
  }
  if (!/^\d+$/.test(number) || BigInt(number) < 1n || BigInt(number) > 100000000000000000000n) {
    $('play-error').textContent = 'The game number must be a whole number from 1 to 10^20 (100000000000000000000).';
    return;
  }
  startGame({ kind: 'pysol', game, number: BigInt(number).toString() });
}

// The position of the board above (typed, loaded or edited), under the variant chosen
// there, played from here.
function playPosition() {
  if (!showNotation()) return;
  const variant = $('variant').value;
  if (!['basic', 'common', 'aisleriot'].includes(variant) || (state.game && state.game.board)) {
    $('notation-error').textContent = 'Only a position under basic, common or aisleriot can be played on the play board.';
    return;
  }
  startGame({ kind: 'position', notation: formatGrid(state.grid) }, { variant });
  $('play-section').scrollIntoView();
}

function openLink() {
  let linked;
  try {
    linked = readLink();
  } catch (e) {
    $('play-error').textContent = e.message;
    return false;
  }
  if (!linked) return false;
  startGame(linked.source, linked);
  return true;
}

// The games the play board takes: every PySolFC game, those played on their own boards
// (`board:GAME`) included, in PySolFC's order.
const PLAYABLE_GAMES = ['montana', 'spaces', 'station', 'free-parking', 'blue-moon', 'red-moon', 'galary',
  'jungle', 'spaces-and-aces', 'paganini', 'house-of-commons', 'line-up'];

document.addEventListener('DOMContentLoaded', () => {
  $('play-game').replaceChildren(...PLAYABLE_GAMES.map((g) => new Option(GAME_NAMES[g], g)));
  $('play-form').addEventListener('submit', newGame);
  $('play-board').addEventListener('click', onPlayClick);
  $('play-undo').addEventListener('click', undo);
  $('play-redeal').addEventListener('click', redealStep);
  $('play-hint').addEventListener('click', showHint);
  $('play-where').addEventListener('click', whereLost);
  $('notation-play').addEventListener('click', playPosition);
  // A link pasted into the address bar (the page's own updates replace the state, which
  // fires no event).
  window.addEventListener('hashchange', openLink);
  // A player lands on a board ready to play: the linked game, or a Montana game.
  if (!openLink()) {
    $('play-number').value = '';
    newGame();
  }
});
