// The play board of the gaps page: play a deal (a PySolFC game by number, one of our
// numbered deals, or a position typed above) by clicking a card and then a gap,
// redeal, undo. A move is drawn at once; the service then checks it (a job with
// `played`, answered from the store when asked before) and says whether the game can
// still be won, gives the next step on request (before the first move too), and after
// a loss finds where it was lost (a job with `"review": true`) and plays the line that
// would have won, step by step. Where the redeals' shuffles are not seeded (a position,
// or `aisleriot`), it also gives the chance to win from here (an odds job).
// The link holds the game and the steps played, so a game can be shared and reopened.
// Invariants: the page never judges a step itself: the service checks every step (a
// 422 names why, and a move drawn at once is taken back), and the board after a redeal
// is the one the service dealt. The page counts steps, rows and columns from 1, the
// service's words included (`forPeople`); the API and the link count from 0.
// Uses app.js's helpers ($, api, esc, drawGrid, cardText, parseBoard, parseNotation,
// GAME_NAMES, copyText, followEvents).
'use strict';

const PLAY_TIME_MS = 3000;

// Samples of the chance to win from here (each a sequence of shuffles played out).
const ODDS_SAMPLES = 20;

const play = {
  source: null, // {kind: 'pysol', game, number}, {kind: 'deal', seed, suits, ranks} or {kind: 'position', notation}
  variant: null,
  redeals: 0, // redeals of the game in all, as chosen (at most `maxRedeals`)
  maxRedeals: 0, // the game's own redeals (PySolFC's), or 2
  start: null, // the grid at the deal (the board the game is shown on)
  grid: null,
  steps: [],
  selected: null,
  answer: null, // the last job answered for the current steps
  review: null, // the review of the current steps, once lost
  hint: null, // the hint shown, until the next step
  line: null, // {steps, at}: the winning line from the fatal step, being played
  checking: false, // a step is with the service, which has not said yet whether it is legal
  dealing: false, // a redeal was accepted, and its board is not back yet
  queued: null, // a step clicked while another was being checked: played once it is
  asked: 0, // a counter: a late answer for older steps is dropped
};

// Whether the service deals this game's redeals (a PySolFC game's generator, or our
// numbered deal's under `basic` and `common`); elsewhere their shuffles are unknown, a
// Gaps job plays the round in play only, and the odds say the chance to win.
const seeded = () => play.source.kind === 'pysol' || (play.source.kind === 'deal' && play.variant !== 'aisleriot');
const redealsUsed = (steps = play.steps) => steps.filter((s) => s.redeal).length;
// Whether a verdict is about the round in play only: redeals are left that the service
// cannot deal.
const roundOnly = () => !seeded() && play.redeals > redealsUsed();

// The service's words for people: its steps and cells are counted from 0 ("played step
// 3", "(0,4)"), the page's from 1.
const forPeople = (text) => text
  .replace(/(played: )?played step (\d+)/g, (_, p, k) => `step ${Number(k) + 1}`)
  .replace(/\((\d+),(\d+)\)/g, (_, r, c) => cellName(Number(r), Number(c)));

// A step in words, cells counted from 1.
const stepWords = (s) => (s.redeal ? `redeal ${s.redeal}` : `${s.card} from ${cellName(s.from[0], s.from[1])} to ${cellName(s.to[0], s.to[1])}`);

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

// The gaps the picked card may go to, as the service listed the legal moves of the
// position shown (none while it has not answered about it).
function litGaps() {
  const moves = (play.answer && play.answer.legal_moves) || [];
  return new Set(moves.filter((m) => !m.redeal && `${m.from[0]},${m.from[1]}` === play.selected)
    .map((m) => `${m.to[0]},${m.to[1]}`));
}

function renderPlay(marks = {}) {
  const hint = play.hint && !play.hint.redeal ? play.hint : null;
  const lit = play.selected === null ? new Set() : litGaps();
  drawGrid($('play-board'), play.grid, (el, r, c) => {
    const key = `${r},${c}`;
    if (play.selected === key) { el.classList.add('selected'); el.setAttribute('aria-selected', 'true'); }
    if (lit.has(key)) { el.classList.add('lit'); el.setAttribute('aria-description', 'takes the card picked'); }
    if (marks.from === key) el.classList.add('from');
    if (marks.to === key) el.classList.add('moved');
    if (hint && `${hint.from[0]},${hint.from[1]}` === key) { el.classList.add('hint-card'); el.title = 'The hint: this card'; }
    if (hint && `${hint.to[0]},${hint.to[1]}` === key) { el.classList.add('hint-gap'); el.title = 'The hint: into this gap'; }
  });
  if (!play.grid) return;
  const used = redealsUsed();
  const redeal = $('play-redeal');
  redeal.disabled = used >= play.redeals || !seeded();
  redeal.textContent = `Redeal (${Math.max(0, play.redeals - used)} left)`;
  redeal.title = seeded() ? '' : 'The service cannot deal this redeal (no generator: its shuffle is unknown); the chance to win counts it.';
  $('play-undo').disabled = play.steps.length === 0;
  $('play-steps').textContent = `${play.steps.length} step${play.steps.length === 1 ? '' : 's'} played`;
}

// A board or position as the service writes it (cards and `--`, any width).
const gridOfText = (text) => parseBoard(text);

// ---------- Asking the service ----------

// The source, variant and played steps of a request about `steps`.
function gameBody(steps) {
  const body = { played: steps };
  // A game number goes as a string of its digits (the API takes either).
  if (play.source.kind === 'pysol') body.pysol = { game: play.source.game, number: play.source.number };
  else if (play.source.kind === 'position') Object.assign(body, { position: play.source.notation, variant: play.variant });
  else Object.assign(body, { deal: { seed: 0, suits: play.source.suits, ranks: play.source.ranks }, variant: play.variant });
  return body;
}

// `body` as JSON, a numbered deal's number as its digits (exact above 2^53, where a
// JavaScript number is not).
function bodyJson(body) {
  const json = JSON.stringify(body);
  return play.source.kind === 'deal' ? json.replace('"seed":0,', `"seed":${play.source.seed},`) : json;
}

function jobBody(steps, review) {
  const body = { redeals: seeded() ? play.redeals : 0, ...gameBody(steps), limits: { time_ms: PLAY_TIME_MS } };
  if (review) body.review = true;
  return bodyJson(body);
}

// The job once it ended, followed by its events (app.js's followEvents).
const finished = (job) => followEvents(job, () => {});

// The service's answer about `steps` (a refused step throws the service's reason).
async function ask(steps, review = false) {
  const job = await api('/v1/jobs?wait_ms=10000', { method: 'POST', body: jobBody(steps, review) });
  return finished(job);
}

function say(text, kind = '') {
  const el = $('play-verdict');
  el.textContent = text;
  el.className = `verdict ${kind}`;
  el.setAttribute('aria-busy', kind === 'thinking' ? 'true' : 'false');
}

function note(text) {
  $('play-error').textContent = text ? forPeople(text) : '';
}

// Shows the answer about the current steps (`posted`: a job already asked about them),
// and once lost, where it was lost.
async function judge(posted = null) {
  const asked = ++play.asked;
  play.answer = null;
  play.review = null;
  $('play-hint').disabled = true;
  $('play-where').hidden = true;
  $('play-odds-text').textContent = '';
  say('Thinking…', 'thinking');
  let job;
  try {
    job = posted ? await finished(posted) : await ask(play.steps);
  } catch (e) {
    if (asked === play.asked) { play.dealing = false; say(''); note(e.message); }
    return;
  }
  if (asked !== play.asked) return;
  play.answer = job;
  const board = job.played_board || job.played_position;
  if (board) play.grid = gridOfText(board);
  play.dealing = false;
  renderPlay();
  if (job.verdict === 'solvable') {
    const won = job.solution.length === 0;
    say(won ? 'Won!' : roundOnly() ? 'This round can still be won.' : 'Can still be won.', 'winnable');
    $('play-hint').disabled = won;
  } else if (job.verdict === 'unsolvable') {
    say(roundOnly() ? 'This round is lost (a redeal is left: ask the chance to win). Finding where…'
      : 'Lost: no line wins it from here. Finding where it was lost…', 'lost');
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
    if (asked === play.asked) note(e.message);
    return;
  }
  if (asked !== play.asked) return;
  const r = job.review;
  play.review = r;
  const lost = roundOnly() ? 'This round is lost' : 'Lost';
  if (r && r.lost_from_start) {
    say(`${lost} since the deal: no line ever won it.`, 'lost');
  } else if (r && r.fatal_step != null) {
    say(`${lost} since step ${r.fatal_step + 1} (${stepWords(play.steps[r.fatal_step])}): before it, it could still be won.`, 'lost');
    $('play-where').hidden = false;
  } else {
    say('Lost; where is not known yet (the search ran out of time).', 'lost');
  }
}

// ---------- Playing ----------

// Plays `step`: a move is drawn at once and taken back if the service refuses it; a
// redeal's board comes with the service's answer. A step clicked while another is
// being checked waits for it (one at a time).
async function tryStep(step) {
  if (play.checking) {
    play.queued = step;
    note(`Queued: ${stepWords(step)}, played once step ${play.steps.length} is checked.`);
    return;
  }
  const before = { steps: play.steps, grid: play.grid };
  const steps = [...play.steps, step];
  const onLine = play.line && play.line.at < play.line.steps.length
    && stepCode(play.line.steps[play.line.at]) === stepCode(step);
  play.checking = true;
  play.asked += 1; // an answer about the steps before is late now
  play.answer = null;
  play.steps = steps;
  play.selected = null;
  play.hint = null;
  $('play-hint-text').textContent = '';
  if (!step.redeal) play.grid = applyMove(play.grid, step);
  renderPlay(step.redeal ? {} : { from: step.from.join(','), to: step.to.join(',') });
  note('');
  say(step.redeal ? 'Redealing…' : 'Checking the move…', 'thinking');
  let job;
  try {
    // The service checks the step (a refusal throws its reason); the job it starts
    // answers about the game after it.
    job = await api('/v1/jobs', { method: 'POST', body: jobBody(steps, false) });
  } catch (e) {
    play.checking = false;
    play.queued = null;
    Object.assign(play, { steps: before.steps, grid: before.grid });
    renderPlay();
    note(e.message);
    // The answer about the steps before, again (from the store: it was asked).
    await judge();
    return;
  }
  play.checking = false;
  if (step.redeal) play.dealing = true;
  if (play.line) {
    if (onLine) play.line.at += 1; else play.line = null;
    showLine();
  }
  writeLink();
  const queued = play.queued;
  play.queued = null;
  if (queued) { note(''); tryStep(queued); return; }
  await judge(job);
}

function onPlayClick(event) {
  const el = event.target.closest('.cell');
  if (!el || !play.grid) return;
  if (play.dealing) {
    note('Wait a moment: the redeal is being dealt.');
    return;
  }
  const r = Number(el.dataset.row);
  const c = Number(el.dataset.col);
  const key = `${r},${c}`;
  if (play.selected === null) {
    if (el.dataset.card === '--') {
      note('Choose a card first, then the gap it goes to.');
      return;
    }
    play.selected = key;
    note('');
    renderPlay();
    return;
  }
  if (play.selected === key) { play.selected = null; renderPlay(); return; }
  const [fr, fc] = play.selected.split(',').map(Number);
  const card = cardText(play.grid[fr][fc]);
  tryStep({ card, from: [fr, fc], to: [r, c] });
}

function redealStep() {
  if (play.dealing || play.checking) {
    note('Wait a moment: the last step is being checked.');
    return;
  }
  tryStep({ redeal: redealsUsed() + 1 });
}

async function undo() {
  if (play.steps.length === 0) return;
  if (play.dealing || play.checking) {
    note('Wait a moment: the last step is being checked.');
    return;
  }
  play.steps = play.steps.slice(0, -1);
  play.hint = null;
  $('play-hint-text').textContent = '';
  if (play.line) {
    if (play.line.at > 0) play.line.at -= 1; else play.line = null;
    showLine();
  }
  const local = replayLocally(play.steps);
  if (local) play.grid = local; else play.dealing = true;
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
  play.hint = hint;
  $('play-hint-text').textContent = hint.redeal
    ? `Hint: redeal now (redeal ${hint.redeal}).`
    : `Hint: ${stepWords(hint)} (marked on the board).`;
  renderPlay();
}

// Back to just before the fatal step, with the line that would have won from there,
// to play on the board step by step.
async function whereLost() {
  const r = play.review;
  if (!r || r.fatal_step == null) return;
  const fatal = play.steps[r.fatal_step];
  play.line = { steps: r.board_winning_line || r.winning_line || [], at: 0, fatal: r.fatal_step, fatalStep: fatal };
  play.steps = play.steps.slice(0, r.fatal_step);
  play.hint = null;
  $('play-hint-text').textContent = '';
  const local = replayLocally(play.steps);
  if (local) play.grid = local; else play.dealing = true;
  renderPlay();
  writeLink();
  showLine();
  await judge();
}

// The winning line from the fatal step: its steps, the next one to play marked.
function showLine() {
  const line = play.line;
  $('play-line').hidden = !line;
  if (!line) return;
  $('play-line-title').textContent = `Step ${line.fatal + 1} (${stepWords(line.fatalStep)}) lost the game. From before it, this line wins (${line.steps.length} steps):`;
  $('play-line-steps').start = line.fatal + 1;
  $('play-line-steps').innerHTML = line.steps.map((m, i) => `<li class="${i < line.at ? 'done' : i === line.at ? 'current' : ''}">${esc(stepWords(m))}</li>`).join('');
  const next = $('play-line-next');
  next.disabled = line.at >= line.steps.length;
  next.textContent = line.at >= line.steps.length ? 'Line played' : `Play step ${line.fatal + line.at + 1} of the line`;
  const current = $('play-line-steps').querySelector('li.current');
  if (current) current.scrollIntoView({ block: 'nearest' });
}

function playLineStep() {
  const line = play.line;
  if (!line || line.at >= line.steps.length) return;
  if (play.dealing || play.checking) {
    note('Wait a moment: the last step is being checked.');
    return;
  }
  tryStep(line.steps[line.at]);
}

// The chance to win from here when the redeals' shuffles are unknown: an odds job's
// bounds (the strategy a player can follow, and one who knows the shuffles).
async function askOdds() {
  const out = $('play-odds-text');
  const asked = play.asked;
  out.textContent = 'Sampling shuffles…';
  out.setAttribute('aria-busy', 'true');
  const body = { ...gameBody(play.steps), redeals: play.redeals, odds: { samples: ODDS_SAMPLES }, limits: { time_ms: 20000 } };
  let job;
  try {
    job = await finished(await api('/v1/jobs?wait_ms=10000', { method: 'POST', body: bodyJson(body) }));
  } catch (e) {
    if (asked === play.asked) out.textContent = forPeople(e.message);
    return;
  } finally {
    out.setAttribute('aria-busy', 'false');
  }
  if (asked !== play.asked) return;
  const odds = job.odds;
  if (!odds) { out.textContent = `No answer (${job.state}${job.stopped ? `, ${job.stopped}` : ''}).`; return; }
  const pct = (x) => `${Math.round(x * 100)}%`;
  if (odds.exact != null) {
    out.textContent = `Chance to win from here: ${pct(odds.exact)} (exact, ${job.redeals_left} redeal${job.redeals_left === 1 ? '' : 's'} left).`;
  } else {
    const lo = odds.lower;
    const hi = odds.upper;
    out.textContent = `Chance to win from here (${job.redeals_left} redeal${job.redeals_left === 1 ? '' : 's'} left, shuffles unknown): `
      + `at least ${pct(lo.chance)} by the strategy (95%: ${pct(lo.ci95_low)}–${pct(lo.ci95_high)}), `
      + `at most ${pct(hi.chance)} knowing the shuffles (95%: ${pct(hi.ci95_low)}–${pct(hi.ci95_high)}), over ${lo.samples} samples.`;
  }
}

async function copyLink() {
  await copyText(location.href);
  note('Link copied.');
}

// ---------- Loading a game ----------

// The game select shows the game on the board: a PySolFC game, or none (a numbered
// deal or a position, for which the select says so).
function showGameChoice(game) {
  const select = $('play-game');
  let none = select.querySelector('option[value=""]');
  if (game === '' && !none) {
    none = new Option('— (not a PySolFC game)', '');
    select.prepend(none);
  } else if (game !== '' && none) {
    none.remove();
  }
  select.value = game;
}

// The redeals the select offers: 0 to the game's own.
function fillRedeals() {
  const select = $('play-redeals');
  select.replaceChildren(...Array.from({ length: play.maxRedeals + 1 }, (_, k) => new Option(
    k === 0 ? '0 (first round only)' : String(k), String(k),
  )));
  select.value = String(play.redeals);
}

async function startGame(source, options = {}) {
  note('');
  let maxRedeals;
  let variant;
  try {
    if (source.kind === 'pysol') {
      const g = await api(`/v1/pysol/${source.game}/${source.number}`);
      play.start = parseBoard(g.board);
      variant = g.variant;
      maxRedeals = g.redeals;
      $('play-what').textContent = `PySolFC ${g.title} #${source.number}`;
      showGameChoice(source.game);
      $('play-number').value = source.number;
    } else if (source.kind === 'position') {
      const parsed = parseNotation(source.notation);
      play.start = parsed.grid;
      variant = options.variant || 'common';
      maxRedeals = 2;
      $('play-what').textContent = `A ${parsed.suits} × ${parsed.ranks} position (${variant})`;
    } else {
      const d = await api(`/v1/deals/${source.seed}?suits=${source.suits}&ranks=${source.ranks}`);
      play.start = parseNotation(d.position).grid;
      variant = options.variant || 'common';
      maxRedeals = 2;
      $('play-what').textContent = `Deal ${source.seed} (${source.suits} × ${source.ranks}, ${variant})`;
    }
  } catch (e) {
    note(e.message);
    return;
  }
  if (source.kind !== 'pysol') showGameChoice('');
  play.source = source;
  play.variant = variant;
  play.maxRedeals = maxRedeals;
  // A PySolFC game plays its own redeals unless the link says fewer; elsewhere none
  // unless chosen.
  const asked = options.redeals ?? (source.kind === 'pysol' ? maxRedeals : 0);
  play.redeals = Math.max(0, Math.min(maxRedeals, Number.isInteger(asked) ? asked : 0));
  fillRedeals();
  play.steps = options.steps || [];
  const local = replayLocally(play.steps);
  play.grid = local || play.start;
  play.dealing = !local;
  play.selected = null;
  play.answer = null;
  play.hint = null;
  play.line = null;
  play.queued = null;
  play.asked += 1;
  $('play-hint-text').textContent = '';
  $('play-odds').hidden = seeded();
  $('play-odds-text').textContent = '';
  showLine();
  renderPlay();
  writeLink();
  // Asked at once, the first move included: the verdict and the hint are there before it.
  await judge();
}

// Another number of redeals: the same game, its steps kept up to the first redeal
// beyond it.
function changeRedeals() {
  const redeals = Number($('play-redeals').value);
  const steps = [];
  for (const s of play.steps) {
    if (s.redeal && s.redeal > redeals) break;
    steps.push(s);
  }
  startGame(play.source, { redeals, variant: play.variant, steps });
}

function newGame(event) {
  if (event) event.preventDefault();
  const game = $('play-game').value;
  if (game === '') {
    note('Choose a PySolFC game for a new game.');
    return;
  }
  let number = $('play-number').value.trim();
  if (number === '') {
    number = String(1 + Math.floor(Math.random() * 31999));
    $('play-number').value = number;
  }
  if (!/^\d+$/.test(number) || BigInt(number) < 1n || BigInt(number) > 100000000000000000000n) {
    note('The game number must be a whole number from 1 to 10^20 (100000000000000000000).');
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
    note(e.message);
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
  $('play-line-next').addEventListener('click', playLineStep);
  $('play-odds').addEventListener('click', askOdds);
  $('play-copy').addEventListener('click', copyLink);
  $('play-redeals').addEventListener('change', changeRedeals);
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
