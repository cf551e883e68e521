// End-to-end test of the web page: the real `gaps` binary on a free port with a fresh
// database, driven through Debian's Chromium by playwright-core. Run by scripts/browser-tests.sh.
// Each step names what a person does and what they must see; any failure exits non-zero.
// With UPDATE_SCREENSHOTS=1 the main screens are saved to docs/screenshots/.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = process.env.SERVICE_BIN || join(root, 'target', 'debug', 'gaps');
const shots = process.env.UPDATE_SCREENSHOTS ? join(root, 'docs', 'screenshots') : null;

const freePort = () => new Promise((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

async function startService(env = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'gaps-ui-'));
  const port = await freePort();
  const child = spawn(bin, ['serve', '--listen', `127.0.0.1:${port}`, '--database', `sqlite://${join(dir, 'gaps.db')}`], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, GAPS_SOLVER__THREADS: '2', GAPS_SOLVER__TABLE_MB: '16', GAPS_LOG__FORMAT: 'json', RUST_LOG: 'warn', ...env },
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i += 1) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return { base, child, dir };
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error('the service did not start');
}

const jobCount = async (base) => (await (await fetch(`${base}/v1/jobs?limit=500`)).json()).jobs.length;

// Clicks Solve and waits until the job it creates is done. The job shown before may be
// done already, so this waits for the new job's id first (waiting for "done" alone
// could match the previous job and read its answer).
async function solveNewJob(page) {
  const previous = await page.textContent('#job-id');
  await page.click('#solve');
  await page.waitForFunction((prev) => document.querySelector('#job-id').textContent !== prev, previous, { timeout: 30000 });
  await page.waitForFunction(() => document.querySelector('#job-state').textContent.startsWith('done'), null, { timeout: 60000 });
}

async function shot(page, name) {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

async function run() {
  const { base, child, dir } = await startService();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const errors = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && !/status of 4\d\d/.test(m.text()) && errors.push(m.text()));

    console.log('step: the page opens on a Montana game ready to play, and deal 1 drawn as a 4 x 13 board');
    await page.goto(base);
    await page.waitForSelector('#board .cell');
    await page.waitForFunction(() => document.querySelectorAll('#play-board .cell').length === 52);
    assert.match(await page.textContent('#play-what'), /PySolFC Montana #\d+/);
    assert.match(page.url(), /#play=pysol%3Amontana%3A\d+/);
    // The game is judged at once: the verdict, and a hint before the first move.
    await page.waitForFunction(() => /Can still be won|Lost|Not known/.test(document.querySelector('#play-verdict').textContent), null, { timeout: 60000 });
    assert.equal(await page.inputValue('#play-game'), 'montana');
    assert.equal(await page.inputValue('#play-redeals'), '2', 'Montana plays its two redeals');
    assert.equal(await page.locator('#play-redeals option').count(), 3);
    assert.ok(await page.locator('#play-odds').isHidden(), "PySolFC's redeals are seeded: no odds");
    const opened = await jobCount(base);
    assert.equal(await page.locator('#board .cell').count(), 52);
    assert.equal(await page.locator('#board .cell.gap').count(), 4);
    await shot(page, 'board');

    console.log('step: garbage typed into the notation is shown at its cell and never sent');
    await page.fill('#notation', '2S 3S 4S --/2H 3H ZZ --/2D 3D 4D --/2C 3C 4C --');
    await page.click('#notation-show');
    await page.waitForSelector('#board .cell.invalid');
    assert.match(await page.textContent('#notation-error'), /Unknown token “ZZ” at row 2, column 3/);
    assert.equal(await page.getAttribute('#board .cell.invalid', 'data-row'), '1');
    await page.click('#solve');
    assert.match(await page.textContent('#solve-error'), /Fix the position first/);
    await page.fill('#notation', '2S 3S 4S --/2H 3H 4H --/2D 3D 4D --/2C 3C 2C --');
    await page.click('#notation-show');
    assert.match(await page.textContent('#notation-error'), /Duplicate card 2C at row 4, column 3/);
    await shot(page, 'parse-error');
    await page.fill('#deal-seed', 'abc');
    await page.click('#deal-load');
    assert.match(await page.textContent('#deal-error'), /whole number/);
    assert.equal(await jobCount(base), opened, 'bad input must not create jobs');

    console.log('step: a numbered 4 x 6 deal is loaded, solved, and its solution replayed to the won position');
    await page.fill('#deal-seed', '6');
    await page.fill('#deal-ranks', '6');
    await page.click('#deal-load');
    await page.waitForFunction(() => document.querySelectorAll('#board .cell').length === 24);
    const dealText = await (await fetch(`${base}/v1/deals/6?suits=4&ranks=6`)).json();
    assert.equal(await page.inputValue('#notation'), dealText.position);
    await page.selectOption('#variant', 'basic');
    await page.click('#solve');
    await page.waitForFunction(() => document.querySelector('#job-state').textContent.startsWith('done'), null, { timeout: 60000 });
    assert.equal(await page.textContent('#job-verdict'), 'solvable');
    await page.waitForSelector('#replay-section:not([hidden])');
    const moves = await page.locator('#replay-moves li').count();
    assert.ok(moves > 10, `a real solution (${moves} moves)`);
    await page.click('#replay-forward');
    await page.click('#replay-forward');
    assert.match(await page.textContent('#replay-status'), new RegExp(`Move 2 of ${moves}`));
    assert.equal(await page.locator('#board .cell.moved').count(), 1, 'the moved card is highlighted');
    await shot(page, 'replay');
    await page.click('#replay-back');
    assert.match(await page.textContent('#replay-status'), new RegExp(`Move 1 of ${moves}`));
    await page.fill('#replay-speed', '20');
    await page.click('#replay-play');
    await page.waitForFunction((n) => document.querySelector('#replay-status').textContent.startsWith(`Move ${n} of ${n}`), moves, { timeout: 30000 });
    assert.match(await page.textContent('#replay-status'), /won position reached/);
    const rows = await page.$$eval('#board [role=row]', (rs) => rs.map((r) => [...r.querySelectorAll('.cell')].map((c) => c.dataset.card).join(' ')));
    assert.deepEqual(rows, ['2S 3S 4S 5S 6S --', '2H 3H 4H 5H 6H --', '2D 3D 4D 5D 6D --', '2C 3C 4C 5C 6C --']);
    await shot(page, 'won');
    await page.click('#replay-copy');
    await page.waitForFunction((n) => document.querySelector('#replay-status').textContent === `Copied ${n} moves as text.`, moves);
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied.split('\n').length, moves);

    console.log('step: the same position asked again is answered from the store, with no new job');
    const jobsSolved = await jobCount(base);
    await page.click('#solve');
    await page.waitForFunction(() => document.querySelector('#job-state').textContent === 'known answer, no search');
    assert.equal(await page.textContent('#job-verdict'), 'solvable');
    await page.waitForSelector('#replay-section:not([hidden])');
    assert.equal(await page.locator('#replay-moves li').count(), moves);
    assert.equal(await jobCount(base), jobsSolved);

    console.log('step: cards are placed by clicking (a swap), and the notation follows');
    await page.click('#notation-show');
    const before = await page.inputValue('#notation');
    await page.click('#board [data-row="0"][data-col="0"]');
    await page.click('#board [data-row="0"][data-col="1"]');
    const after = await page.inputValue('#notation');
    const [a, b] = before.split('/')[0].split(' ');
    assert.equal(after.split('/')[0].split(' ').slice(0, 2).join(' '), `${b} ${a}`);

    console.log('step: a server refusal is shown in plain words and stores nothing');
    const jobsBefore = await jobCount(base);
    await page.fill('#limit-time', '999999999999');
    await page.click('#solve');
    await page.waitForFunction(() => document.querySelector('#solve-error').textContent !== '');
    assert.match(await page.textContent('#solve-error'), /The service refused this: .*time/);
    assert.equal(await jobCount(base), jobsBefore);
    await page.fill('#limit-time', '');

    console.log('step: a PySolFC game is loaded by number, solved as that game, and kept in the job');
    await page.fill('#pysol-number', '0');
    await page.click('#pysol-load');
    assert.match(await page.textContent('#pysol-error'), /from 1/);
    await page.selectOption('#pysol-game', 'blue-moon');
    await page.fill('#pysol-number', '2');
    await page.click('#pysol-load');
    await page.waitForFunction(() => document.querySelector('#board-status').textContent.includes('Blue Moon #2'));
    const game = await (await fetch(`${base}/v1/pysol/blue-moon/2`)).json();
    assert.equal(await page.inputValue('#notation'), game.position);
    assert.equal(await page.inputValue('#variant'), 'basic');
    await page.selectOption('#algorithm', 'auto');
    await solveNewJob(page);
    assert.equal(await page.textContent('#job-verdict'), 'solvable');
    const latest = (await (await fetch(`${base}/v1/jobs?limit=1`)).json()).jobs[0];
    assert.equal(latest.pysol.game, 'blue-moon');
    assert.equal(latest.pysol.number, 2);
    // The job shows PySolFC's board (its Aces column) and the solution on it.
    assert.equal(latest.pysol.board, game.board);
    assert.equal(latest.pysol.board_solution.length, latest.solution.length);
    // A number above 2^53 (where JavaScript numbers lose digits) reaches the job exactly.
    await page.fill('#pysol-number', '9007199254740993');
    await page.click('#pysol-load');
    await page.waitForFunction(() => document.querySelector('#board-status').textContent.includes('#9007199254740993'));
    await solveNewJob(page);
    const latestText = await (await fetch(`${base}/v1/jobs?limit=1`)).text();
    assert.match(latestText, /"pysol":\{"game":"blue-moon","number":9007199254740993,/);

    console.log('step: a game lost in its first round is won with a redeal, and the replay deals again');
    await page.selectOption('#pysol-game', 'montana');
    await page.fill('#pysol-number', '42');
    await page.click('#pysol-load');
    await page.waitForFunction(() => document.querySelector('#board-status').textContent.includes('Montana #42'));
    assert.equal(await page.inputValue('#redeals'), '2');
    await solveNewJob(page);
    assert.equal(await page.textContent('#job-verdict'), 'solvable');
    const redealJob = (await (await fetch(`${base}/v1/jobs?limit=1`)).json()).jobs[0];
    assert.equal(redealJob.redeals, 2);
    const redealAt = redealJob.solution.findIndex((s) => s.redeal === 1);
    assert.ok(redealAt >= 0, 'the solution redeals');
    await page.waitForSelector('#replay-section:not([hidden])');
    await page.click(`#replay-moves [data-step="${redealAt + 1}"]`);
    assert.match(await page.textContent('#replay-status'), /Redeal 1/);
    const gathered = redealJob.stats.rounds.redealt[0].gathered;
    assert.ok((await page.textContent('#replay-status')).includes(`${gathered.length} cards gathered: ${gathered.join(' ')}`));
    const dealt = redealJob.stats.rounds.redealt[0].position.split('/').map((r) => r.split(' ').join(' '));
    const shown = await page.$$eval('#board [role=row]', (rs) => rs.map((r) => [...r.querySelectorAll('.cell')].map((c) => c.dataset.card || '--').join(' ')));
    assert.deepEqual(shown, dealt);
    await page.click(`#replay-moves [data-step="${redealJob.solution.length}"]`);
    assert.match(await page.textContent('#replay-status'), /won position reached/);

    console.log('step: a game played on its own board is drawn in its shape, solved under its rules and replayed to its win');
    await page.selectOption('#pysol-game', 'galary');
    await page.fill('#pysol-number', '13');
    await page.click('#pysol-load');
    await page.waitForFunction(() => document.querySelector('#board-status').textContent.includes('Galary #13'));
    const galary = await (await fetch(`${base}/v1/pysol/galary/13`)).json();
    assert.equal(galary.variant, 'board:galary');
    const drawn = await page.$$eval('#board [role=row]', (rs) => rs.map((r) => [...r.querySelectorAll('.cell')].map((c) => c.dataset.card || '--').join(' ')));
    assert.deepEqual(drawn, galary.board.split('/'));
    assert.equal(drawn[0].split(' ').length, 14);
    await solveNewJob(page);
    assert.equal(await page.textContent('#job-verdict'), 'solvable');
    const boardJob = (await (await fetch(`${base}/v1/jobs?limit=1`)).json()).jobs[0];
    assert.equal(boardJob.variant, 'board:galary');
    assert.equal(boardJob.redeals, 2);
    await page.waitForSelector('#replay-section:not([hidden])');
    await page.click(`#replay-moves [data-step="${boardJob.solution.length}"]`);
    assert.match(await page.textContent('#replay-status'), /won position reached/);

    console.log('step: a long search (common deal 2, dfs: not decided in minutes) shows live progress and is cancelled');
    await page.fill('#deal-seed', '2');
    await page.fill('#deal-ranks', '13');
    await page.click('#deal-load');
    await page.waitForFunction(() => document.querySelectorAll('#board .cell').length === 52);
    await page.selectOption('#variant', 'common');
    await page.selectOption('#algorithm', 'dfs');
    await page.fill('#limit-time', '120000');
    await page.click('#solve');
    await page.waitForFunction(() => document.querySelector('#job-state').textContent === 'running'
      && document.querySelector('#job-nodes').textContent !== '—', null, { timeout: 30000 });
    await shot(page, 'running');
    await page.click('#cancel');
    await page.waitForFunction(() => document.querySelector('#job-state').textContent === 'cancelled', null, { timeout: 30000 });
    await page.fill('#limit-time', '');

    console.log('step: history lists the jobs and opens one; statistics draw their charts');
    await page.click('#history-form button[type=submit]');
    await page.waitForFunction(() => document.querySelectorAll('#history tbody button[data-job]').length >= 2);
    await page.click('#stats-refresh');
    await page.waitForSelector('#winrate-chart svg rect.bar');
    await page.waitForSelector('#effort-chart svg rect.bar');
    assert.match(await page.textContent('#winrates tbody'), /basic.*4×6/s);
    assert.match(await page.textContent('#winrates tbody'), /PySolFC Blue Moon games.*basic.*4×13/s);
    await page.selectOption('#effort-measure', 'ms');
    await page.waitForFunction(() => document.querySelector('#effort-caption').textContent.includes('time'));
    await page.locator('#stats-section').scrollIntoViewIfNeeded();
    await shot(page, 'stats');
    await page.selectOption('#filter-verdict', 'solvable');
    await page.click('#history-form button[type=submit]');
    // Only solvable jobs are listed (the deal, Blue Moon games, Montana 42), each one.
    const solvable = (await (await fetch(`${base}/v1/jobs?verdict=solvable&limit=100`)).json()).jobs.length;
    assert.ok(solvable >= 3, `${solvable} solvable jobs`);
    await page.waitForFunction((n) => document.querySelectorAll('#history tbody button[data-job]').length === n, solvable);
    const verdicts = await page.$$eval('#history tbody tr', (rs) => rs.map((r) => r.children[5].textContent));
    assert.ok(verdicts.every((v) => v === 'solvable'), verdicts.join(', '));
    await page.click('#history tbody button[data-job] >> nth=0');
    await page.waitForSelector('#replay-section:not([hidden])');

    console.log('step: the board is usable from the keyboard');
    await page.click('#notation-show');
    await page.focus('#board [data-row="0"][data-col="0"]');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.row + document.activeElement.dataset.col), '11');
    await page.keyboard.press('Enter');
    assert.match(await page.textContent('#board-status'), /Selected/);

    console.log('step: the page fits a phone screen');
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const small = await phone.newPage();
    await small.goto(base);
    await small.waitForSelector('#board .cell');
    const overflow = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `no horizontal scrolling on a phone (${overflow}px)`);
    const boardOverflow = await small.evaluate(() => { const b = document.getElementById('board'); return b.scrollWidth - b.clientWidth; });
    assert.ok(boardOverflow <= 1, `all 13 columns of the board fit a phone (${boardOverflow}px)`);
    await shot(small, 'phone');

    console.log('step: play a game: a hint is a legal step, a losing move changes the verdict, the review names the fatal step, the link reopens the game');
    // Deal 1 of 3 x 5 (common, no redeal) can be won from the deal, and moving 2S from
    // (1,1) to (0,0) first loses it (found with `gaps solve --played`).
    await page.goto(`${base}/#play=deal:3x5:1&redeals=0&variant=common&steps=`);
    await page.waitForFunction(() => document.querySelectorAll('#play-board .cell').length === 15);
    assert.equal(await page.inputValue('#play-game'), '', 'a numbered deal is no PySolFC game: the select says so');
    const cell = (r, c) => `#play-board [data-row="${r}"][data-col="${c}"]`;
    const lost = { from: [1, 1], to: [0, 0] };
    // The hint is there before the first move, its card and its gap marked on the board.
    await page.waitForFunction(() => document.querySelector('#play-verdict').textContent === 'Can still be won.', null, { timeout: 60000 });
    await page.click('#play-hint');
    assert.match(await page.textContent('#play-hint-text'), /^Hint: \S+ from row \d+, column \d+ to row \d+, column \d+/);
    assert.equal(await page.locator('#play-board .cell.hint-card').count(), 1);
    assert.equal(await page.locator('#play-board .cell.hint-gap.gap').count(), 1);
    assert.equal(await page.textContent('#play-error'), '', 'the hint is not in the error line');
    // A card picked lights the gaps that take it: 2S, a Two, goes to column 1's gaps.
    await page.click(cell(...lost.from));
    const lit = await page.$$eval('#play-board .cell.lit', (els) => els.map((e) => `${e.dataset.row},${e.dataset.col}`));
    assert.ok(lit.includes(lost.to.join(',')), `the gap it goes to is lit (${lit})`);
    assert.ok(lit.length >= 1 && (await page.locator('#play-board .cell.lit:not(.gap)').count()) === 0, 'only gaps are lit');
    await page.click(cell(...lost.to));
    // The move is drawn at once, and the service is seen thinking about it.
    assert.equal(await page.getAttribute(cell(...lost.to), 'data-card'), '2S');
    assert.equal(await page.locator('#play-board .cell.hint-card').count(), 0, 'a step clears the hint');
    await page.waitForFunction(() => /Lost since step 1 \(2S from row 2, column 2 to row 1, column 1\)/.test(document.querySelector('#play-verdict').textContent), null, { timeout: 60000 });
    assert.equal(await page.textContent('#play-steps'), '1 step played');
    assert.match(page.url(), /steps=2S\.1\.1\.0\.0/);
    const lostLink = page.url();
    await page.click('#play-where');
    await page.waitForFunction(() => document.querySelector('#play-verdict').textContent === 'Can still be won.', null, { timeout: 60000 });
    assert.equal(await page.textContent('#play-steps'), '0 steps played');
    assert.match(await page.textContent('#play-line-title'), /Step 1 \(2S from row 2, column 2 to row 1, column 1\) lost the game/);
    const lineLength = await page.locator('#play-line-steps li').count();
    assert.ok(lineLength > 3, 'the line that would have won');
    // The winning line is played on the board, step by step, to the won game. Its first
    // step is checked slowly (the service's answer held back): the second, clicked on
    // the board meanwhile, is queued with a word and played after it.
    const second = /^(\S+) from row (\d+), column (\d+) to row (\d+), column (\d+)$/.exec(await page.textContent('#play-line-steps li:nth-child(2)'));
    assert.ok(second, 'a line step in words, cells from 1');
    // (A late continue of a route already let go is no error of the page's.)
    const slow = (route) => (route.request().method() === 'POST'
      ? setTimeout(() => route.continue().catch(() => {}), 1500) : route.continue().catch(() => {}));
    await page.route('**/v1/jobs', slow);
    await page.click('#play-line-next');
    await page.waitForFunction(() => document.querySelector('#play-verdict').textContent === 'Checking the move…');
    assert.equal(await page.textContent('#play-steps'), '1 step played', 'the move is drawn before the service answers');
    await page.click(cell(Number(second[2]) - 1, Number(second[3]) - 1));
    await page.click(cell(Number(second[4]) - 1, Number(second[5]) - 1));
    assert.match(await page.textContent('#play-error'), /^Queued: /);
    await page.waitForFunction(() => document.querySelector('#play-steps').textContent === '2 steps played', null, { timeout: 30000 });
    // Both steps checked (the second's answer held back too) before the route goes.
    await page.waitForFunction(() => document.querySelectorAll('#play-line-steps li.done').length === 2, null, { timeout: 30000 });
    await page.unroute('**/v1/jobs', slow);
    await page.waitForFunction(() => /Can still be won|Won!/.test(document.querySelector('#play-verdict').textContent), null, { timeout: 60000 });
    for (let k = 2; k < lineLength; k += 1) {
      await page.waitForFunction(() => !document.querySelector('#play-line-next').disabled
        && !document.querySelector('#play-verdict').classList.contains('thinking'), null, { timeout: 60000 });
      await page.click('#play-line-next');
    }
    await page.waitForFunction(() => document.querySelector('#play-verdict').textContent === 'Won!', null, { timeout: 60000 });
    assert.equal(await page.textContent('#play-line-next'), 'Line played');
    // Back to the deal; the hint is a legal step: played, the game can still be won.
    for (let k = 0; k < lineLength; k += 1) {
      await page.waitForFunction(() => !document.querySelector('#play-verdict').classList.contains('thinking'), null, { timeout: 60000 });
      await page.click('#play-undo');
    }
    await page.waitForFunction(() => document.querySelector('#play-steps').textContent === '0 steps played');
    await page.waitForFunction(() => document.querySelector('#play-verdict').textContent === 'Can still be won.', null, { timeout: 60000 });
    await page.click('#play-hint');
    const hint = /Hint: (\S+) from row (\d+), column (\d+) to row (\d+), column (\d+)/.exec(await page.textContent('#play-hint-text'));
    assert.ok(hint, 'a hint names a card and two cells');
    await page.click(cell(Number(hint[2]) - 1, Number(hint[3]) - 1));
    await page.click(cell(Number(hint[4]) - 1, Number(hint[5]) - 1));
    await page.waitForFunction(() => document.querySelector('#play-steps').textContent === '1 step played');
    await page.waitForFunction(() => /Can still be won|Won!/.test(document.querySelector('#play-verdict').textContent), null, { timeout: 60000 });
    // An illegal step is refused with the service's reason; nothing changes.
    // (A card of another suit than the gap's left neighbour, or not a Two for column 0.)
    const [anyCard, gapCell] = await page.evaluate(() => {
      const at = (r, c) => document.querySelector(`#play-board [data-row="${r}"][data-col="${c}"]`).dataset.card;
      const cells = [...document.querySelectorAll('#play-board .cell')].map((el) => [Number(el.dataset.row), Number(el.dataset.col), el.dataset.card]);
      for (const [r, c, card] of cells) {
        if (card !== '--') continue;
        const left = c > 0 ? at(r, c - 1) : null;
        if (left === '--') continue;
        const wrong = cells.find(([, , k]) => k !== '--' && (c === 0 ? k[0] !== '2' : k[1] !== left[1]));
        if (wrong) return [[wrong[0], wrong[1]], [r, c]];
      }
      return null;
    });
    await page.click(cell(...anyCard));
    await page.click(cell(...gapCell));
    await page.waitForFunction(() => /refused|does not take|takes/.test(document.querySelector('#play-error').textContent));
    assert.equal(await page.textContent('#play-steps'), '1 step played');
    // Refusals count from 1 too: the step and the cells in the page's words.
    const refusal = await page.textContent('#play-error');
    assert.match(refusal, /step 2: /);
    assert.doesNotMatch(refusal, /\(\d+,\d+\)|played step/);
    assert.equal(await page.getAttribute(cell(...anyCard), 'data-card') !== '--', true, 'the refused move is taken back');
    // Undo goes back a step; the link of the lost game reopens it at its step.
    await page.click('#play-undo');
    await page.waitForFunction(() => document.querySelector('#play-steps').textContent === '0 steps played');
    const reopened = await context.newPage();
    await reopened.goto(lostLink);
    await reopened.waitForFunction(() => /Lost since step 1/.test(document.querySelector('#play-verdict').textContent), null, { timeout: 60000 });
    assert.equal(await reopened.textContent('#play-steps'), '1 step played');
    assert.equal(await reopened.getAttribute('#play-board [data-row="0"][data-col="0"]', 'data-card'), '2S');
    await shot(reopened, 'play-lost');
    await reopened.close();

    console.log('step: a position typed above is played on the play board, and its link reopens it');
    const typed = (await (await fetch(`${base}/v1/deals/1?suits=3&ranks=5`)).json()).position;
    await page.goto(`${base}/`);
    await page.fill('#notation', typed);
    await page.selectOption('#variant', 'common');
    await page.click('#notation-play');
    await page.waitForFunction(() => /A 3 × 5 position \(common\)/.test(document.querySelector('#play-what').textContent));
    assert.match(page.url(), /#play=position%3A/);
    assert.ok(await page.locator('#play-redeal').isDisabled(), 'a position alone has no redeal');
    await page.click(cell(...lost.from));
    await page.click(cell(...lost.to));
    await page.waitForFunction(() => /Lost since step 1/.test(document.querySelector('#play-verdict').textContent), null, { timeout: 60000 });
    const typedLink = page.url();
    const again = await context.newPage();
    await again.goto(typedLink);
    await again.waitForFunction(() => /Lost since step 1/.test(document.querySelector('#play-verdict').textContent), null, { timeout: 60000 });
    assert.equal(await again.getAttribute('#play-board [data-row="0"][data-col="0"]', 'data-card'), '2S');
    await again.close();
    // A position's redeals have no generator: with two chosen, the verdict is about the
    // round, and the chance to win from here comes from an odds job.
    assert.ok(await page.locator('#play-odds').isVisible(), "a position's redeals are not seeded: its odds are offered");
    await page.selectOption('#play-redeals', '2');
    await page.waitForFunction(() => /^This round is lost since step 1/.test(document.querySelector('#play-verdict').textContent), null, { timeout: 60000 });
    assert.match(page.url(), /redeals=2/);
    await page.click('#play-odds');
    await page.waitForFunction(() => /^Chance to win from here/.test(document.querySelector('#play-odds-text').textContent), null, { timeout: 90000 });
    const odds = await page.textContent('#play-odds-text');
    assert.match(odds, /2 redeals left/);
    assert.match(odds, /exact|at least \d+% by the strategy/);

    console.log('step: a game played on its own board (Galary) is played on its board: a move, its hint, a redeal');
    // Galary 1: 2C at (2,11) goes after AC, into the gap at (0,1) (docs/pysol.md).
    await page.goto(`${base}/#play=pysol:galary:1&redeals=2&steps=`);
    await page.waitForFunction(() => document.querySelectorAll('#play-board .cell').length === 56);
    assert.match(await page.textContent('#play-what'), /PySolFC Galary #1/);
    await page.waitForFunction(() => !document.querySelector('#play-verdict').classList.contains('thinking'), null, { timeout: 60000 });
    await page.click(cell(2, 11));
    // Under Galary's rule too, the gaps lit are those the service lists: (0,1) after AC.
    assert.ok((await page.$$eval('#play-board .cell.lit', (els) => els.map((e) => `${e.dataset.row},${e.dataset.col}`))).includes('0,1'));
    await page.click(cell(0, 1));
    await page.waitForFunction(() => document.querySelector('#play-verdict').textContent === 'Can still be won.', null, { timeout: 60000 });
    assert.equal(await page.getAttribute(cell(0, 1), 'data-card'), '2C');
    assert.match(page.url(), /steps=2C\.2\.11\.0\.1/);
    await page.click('#play-hint');
    assert.match(await page.textContent('#play-hint-text'), /Hint: \S+ from row \d+, column \d+ to row \d+, column \d+/);
    assert.equal(await page.inputValue('#play-game'), 'galary', 'the game select follows the linked game');
    // Copy link puts the page's address, the game and its steps, on the clipboard.
    await page.click('#play-copy');
    await page.waitForFunction(() => document.querySelector('#play-error').textContent === 'Link copied.');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), page.url());
    await page.click('#play-redeal');
    await page.waitForFunction(() => document.querySelector('#play-steps').textContent === '2 steps played');
    await page.waitForFunction(() => /Can still be won|Lost|Not known/.test(document.querySelector('#play-verdict').textContent), null, { timeout: 60000 });
    assert.equal(await page.textContent('#play-redeal'), 'Redeal (1 left)');
    // The board after the redeal is the service's: the run AC 2C stays where it was.
    assert.equal(await page.getAttribute(cell(0, 0), 'data-card'), 'AC');
    assert.equal(await page.getAttribute(cell(0, 1), 'data-card'), '2C');

    console.log('step: recent jobs name their game; the effort chart draws only jobs that searched');
    await page.goto(`${base}/`);
    await page.click('#history-form button[type=submit]');
    await page.waitForFunction(() => /PySolFC|Montana #|Galary #|Deal \d+|Position/.test(document.querySelector('#history tbody').textContent));
    await page.click('#stats-refresh');
    await page.waitForFunction(() => /finished jobs that searched/.test(document.querySelector('#effort-caption').textContent));
    const [barJobs, counted] = await page.evaluate(() => {
      const bars = [...document.querySelectorAll('#effort-chart rect.bar title')].map((t) => Number(t.textContent.split(' ')[0]));
      return [bars.reduce((a, b) => a + b, 0), Number(/last (\d+) finished/.exec(document.querySelector('#effort-caption').textContent)[1])];
    });
    assert.equal(barJobs, counted, "every bar is of jobs that searched");

    console.log('step: with tokens on, the page asks for one, and a move is accepted once it is given');
    const guarded = await startService({ GAPS_AUTH__TOKENS: 'alice:s3cret' });
    try {
      const locked = await context.newPage();
      await locked.goto(`${guarded.base}/#play=deal:3x5:1&redeals=0&variant=common&steps=`);
      await locked.waitForFunction(() => /asks for a token/.test(document.querySelector('#play-error').textContent), null, { timeout: 30000 });
      assert.ok(await locked.locator('#token-form').isVisible());
      await locked.fill('#token', 'alice:s3cret');
      await locked.click('#token-use');
      await locked.click(cell(...lost.from));
      await locked.click(cell(...lost.to));
      await locked.waitForFunction(() => /Lost since step 1/.test(document.querySelector('#play-verdict').textContent), null, { timeout: 60000 });
      await locked.close();
    } finally {
      guarded.child.kill('SIGTERM');
      rmSync(guarded.dir, { recursive: true, force: true });
    }

    console.log('step: the Morpion page draws a record, proves its endgame and draws the longest continuation');
    await page.goto(`${base}/morpion`);
    await page.click('#m-bruneau');
    await page.waitForFunction(() => document.querySelectorAll('#m-grid circle.kept-dot').length === 150);
    assert.equal(await page.locator('#m-grid circle.cross').count(), 36);
    assert.equal(await page.locator('#m-grid circle.rest-dot').count(), 20, 'the record after move K, dashed');
    await page.fill('#m-record', '(3,3)\n(3,4) | -7\n');
    await page.click('#m-prove');
    await page.waitForFunction(() => document.querySelector('#m-error').textContent.length > 0);
    assert.match(await page.textContent('#m-error'), /Pentasol|not a Pentasol move/);
    await page.click('#m-bruneau');
    await page.waitForFunction(() => document.querySelectorAll('#m-grid circle.kept-dot').length === 150);
    await page.fill('#m-from', '171');
    await page.click('#m-prove');
    await page.waitForFunction(() => /out of range/.test(document.querySelector('#m-error').textContent));
    await page.fill('#m-from', '150');
    await page.click('#m-prove');
    await page.waitForFunction(() => document.querySelector('#m-state').textContent.startsWith('done'), null, { timeout: 60000 });
    assert.equal(await page.textContent('#m-answer'), '170 moves, proved optimal');
    assert.equal(await page.textContent('#m-nodes-count'), '88');
    assert.equal(await page.locator('#m-grid circle.found-dot').count(), 20);
    assert.equal(await page.locator('#m-grid circle.rest-dot').count(), 0);
    await shot(page, 'morpion');

    assert.deepEqual(errors, [], 'no script errors');
    console.log('browser tests passed');
  } finally {
    await browser.close();
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

run().catch((e) => {
  console.error(e);
  process.exit(1);
});
