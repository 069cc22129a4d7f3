// page.test.mjs -- the page in Debian's chromium: it loads cross-origin
// isolated (the module in its worker) without console errors, every flow
// plays to its end (with a screenshot of each in test-results/), the drawn
// bytes are the module's, the nested call ends with expected against
// actual, the migration shows on a gauge at 65,536 B, the three entries'
// table is whole, the fan-out compares three pools with a conclusion from
// its numbers, keyboard and deep links land on the expected step, inputs
// re-run the module, and without isolation the page still works and plays
// the recorded fan-out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { join } from 'node:path';
import { cells, goHash, openPage, playToEnd, ready, shots, useBrowser } from './harness.mjs';

const OVERWRITTEN = '93 07 A5 69 6E 6E 65 72 CB 3F F8 00'.split(' ');
const INTACT = '93 AA 41 41 41 41 41 41 41 41 41 41'.split(' ');
const LEGACY = '#flow=envelope&case=legacy&before=AAAAAAAAAA&id=7&name=inner';

let page;                           // one page for every test here
const env = useBrowser({ plain: true, open: async (env) => { page = await openPage(env.browser.ctx, env.server.url); } });

test('the page loads cross-origin isolated with the pthread build and no console error', async () => {
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);
  assert.match(await page.textContent('#build'), /pthreads build .* in a worker/);
  assert.equal(await page.isHidden('#notice'), true);
  assert.deepEqual(page.errors, []);
});

test('every case of every flow opens at its first step and plays to its end', async () => {
  const flows = await page.evaluate(() => [...document.querySelectorAll('#tabs [role=tab]')].map((b) => b.dataset.flow));
  assert.deepEqual(flows, ['writer', 'envelope', 'compare', 'fanout']);
  const cases = { writer: ['fits', 'exceeds'], envelope: ['legacy', 'output', 'safe'], compare: ['array', 'output', 'stream'],
    fanout: ['shared', 'lockfree', 'nopool'] };
  for (const flow of flows) {
    for (const c of cases[flow]) {
      await goHash(page, `#flow=${flow}&case=${c}`);
      assert.equal(await page.evaluate(() => window.__player.model.cursor), 0, `${flow}/${c} opens at step 1`);
      const r = await playToEnd(page);
      assert.ok(r.steps > 3, `${flow}/${c} has steps`);
      assert.equal(r.cursor, r.steps - 1, `${flow}/${c} reached its last step`);
      assert.equal(r.playing, false, `${flow}/${c} stopped at the end`);
      assert.match(await page.textContent('#position'), new RegExp(`step ${r.steps} of ${r.steps}`));
      assert.notEqual((await page.textContent('#why')).trim(), '');
      await page.screenshot({ path: join(shots, `flow-${flow}-${c}.png`), fullPage: true });
    }
  }
  assert.deepEqual(page.errors, []);
});

test('the nested call overwrites the outer bytes, showing what each was, and writes over its own leftovers as a state of its own', async () => {
  await goHash(page, `${LEGACY}&step=outer-written`);
  assert.deepEqual(await cells(page, 'scratch', 12), INTACT);                 // as the outer call wrote them
  await goHash(page, `${LEGACY}&step=inner-written`);
  assert.deepEqual(await cells(page, 'scratch', 12), OVERWRITTEN);
  const scratch = page.locator('.buffer[data-kind=scratch]');
  assert.equal(await scratch.locator('.cell.overwritten').count(), 12);
  assert.equal(await scratch.locator('.cell').nth(1).getAttribute('aria-label'), 'scratch byte 1: 07, overwritten, was AA, changed in this step');
  assert.equal(await scratch.locator('.cell').nth(1).locator('.g s').textContent(), 'AA');
  await goHash(page, `${LEGACY}&step=outer-rest`);
  assert.equal(await scratch.locator('.cell.rewritten').count(), 5);         // 12..16: the nested call's leftovers
  assert.equal(await scratch.locator('.cell.overwritten').count(), 12);
});

test('the nested call ends with expected against actual, and exactly the 12 overwritten bytes flagged in the result', async () => {
  await goHash(page, `${LEGACY}&step=outer-return`);
  const outer = page.locator('.buffer[data-key=result1]');
  assert.equal(await outer.locator('.cell.overwritten').count(), 12);
  assert.deepEqual(await outer.locator('.cell.overwritten').evaluateAll((cs) => cs.map((c) => Number(c.dataset.i))),
    [...Array(12).keys()]);
  assert.equal(await page.locator('.buffer[data-key=result2] .cell.overwritten').count(), 0);   // the inner result is right
  assert.deepEqual((await cells(page, '.diff-row[data-row=expected]', 12)), INTACT);
  assert.deepEqual((await cells(page, '.diff-row[data-row=actual]', 12)), OVERWRITTEN);
  const real = await page.evaluate(() => Array.from(window.__player.model.result, (b) => b.toString(16).toUpperCase().padStart(2, '0')));
  assert.deepEqual((await cells(page, '.diff-row[data-row=actual]', 64)), real);                 // the module's own result
  assert.match(await page.textContent('.diff h3'), /11 of 32 bytes differ \(bytes 1–11\)/);
  assert.equal(await page.locator('.diff-row[data-row=actual] .cell.differs').count(), 11);
  assert.match(await page.textContent('#out'), /read back fails: SP_E_TYPE at byte 1/);
});

test('in the safe modes the outer bytes stay 93 AA 41 … and match the expected ones', async () => {
  await goHash(page, '#flow=envelope&case=output&before=AAAAAAAAAA&id=7&name=inner&step=outer-return');
  assert.deepEqual(await cells(page, 'output', 12), INTACT);
  assert.match(await page.textContent('#out'), /Before="AAAAAAAAAA" Inner.Id=7/);
  assert.match(await page.textContent('.diff h3'), /identical: all 32 bytes/);
  await goHash(page, '#flow=envelope&case=safe&before=AAAAAAAAAA&id=7&name=inner&step=inner-written');
  assert.deepEqual(await cells(page, 'scratch', 12), INTACT);
  assert.deepEqual(await cells(page, 'segment', 12), OVERWRITTEN);             // the inner call's own segment
  await goHash(page, '#flow=envelope&case=safe&before=AAAAAAAAAA&id=7&name=inner&step=outer-return');
  const real = await page.evaluate(() => Array.from(window.__player.model.result.slice(0, 12), (b) => b.toString(16).toUpperCase().padStart(2, '0')));
  assert.deepEqual(real, INTACT);
  assert.equal(await page.locator('.diff-row .cell.differs').count(), 0);
});

test('with an 8-byte scratch the migration step copies 7 bytes into the first segment', async () => {
  await goHash(page, '#flow=writer&case=exceeds&scratch=8&text=ABCD&step=migrate');
  assert.match(await page.textContent('#why'), /segment 0.*the 7 bytes written so far/);
  assert.deepEqual(await cells(page, 'segment', 7), '97 01 02 03 04 05 06'.split(' '));
  assert.equal(await page.locator('.buffer[data-kind=segment] .cell.copied').count(), 7);
  assert.equal(await page.locator('.code li.current').getAttribute('data-line'), '4');
});

test('at the real 65,536 B the gauge shows the scratch overflow, then the scratch abandoned', async () => {
  const base = '#flow=writer&case=exceeds&scratch=65536&text=ABCD';
  await goHash(page, `${base}&step=ensure-miss`);
  const gauge = page.locator('.buffer[data-kind=scratch] .gauge');
  assert.equal(await gauge.evaluate((g) => g.classList.contains('overflows')), true);
  assert.match(await gauge.getAttribute('aria-label'), /10 of 65,536 B used · asks 65,528 B at 10: 2 B do not fit/);
  assert.equal(await page.textContent('.buffer[data-kind=scratch] .gauge .over'), '+2 B');
  await goHash(page, `${base}&step=migrate`);
  assert.equal(await page.locator('.buffer[data-kind=scratch].abandoned').count(), 1);
  assert.match(await page.textContent('.buffer[data-kind=scratch] h3'), /abandoned/);
  await goHash(page, `${base}&step=result`);
  const seg = page.locator('.buffer[data-kind=segment]');
  assert.match(await seg.locator('.gauge').getAttribute('aria-label'), /65,538 of 131,072 B used/);
  const shown = await seg.locator('.cell').evaluateAll((cs) => cs.map((c) => Number(c.dataset.i)));
  assert.ok(shown.includes(0) && shown.includes(65537), 'the head and the last byte written are drawn');
});

test('the three entries\' table is whole on every tab and says why 17 B is 48 B in .NET', async () => {
  await goHash(page, '#flow=compare&case=stream&step=measured-big');
  const rows = await page.$$eval('table.compare tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(rows.map((r) => r.slice(1, 3)), [['17 B', '100,007 B'], ['0 B', '0 B'], ['0 B', '0 B']]);
  assert.match(rows[0][3], /^48 B \/ 100,032 B ✓ as the document/);
  assert.match(await page.textContent('#note'), /Why 17 B here and 48 B in the document/);
});

test('the fan-out puts the three pools side by side with a conclusion that follows their numbers', async () => {
  await goHash(page, '#flow=fanout&case=shared&consumers=3&step=summary');
  assert.equal(await page.textContent('#frames-title'), 'Threads');
  const bars = await page.$$eval('.board .metric', (ms) => Object.fromEntries(ms.map((m) => [m.dataset.metric,
    Object.fromEntries([...m.querySelectorAll('.bar-row')].map((r) => [r.dataset.pool, r.querySelector('.bar-value').dataset.value]))])));
  assert.deepEqual(Object.keys(bars.ns), ['shared', 'lockfree', 'nopool']);
  const ns = Object.fromEntries(Object.entries(bars.ns).map(([k, v]) => [k, Number(v)]));
  assert.ok(ns.shared > 0 && ns.lockfree > 0 && ns.nopool > 0, JSON.stringify(ns));
  assert.equal(bars.lockWaits.nopool, '');                                      // malloc's lock is not counted
  // 5 runs of 5 waves of 2,048 each, every run a new pool.
  assert.equal(Number(bars.fresh.nopool), 5 * 5 * 2048);                      // every rent allocates
  assert.ok(Number(bars.fresh.shared) <= 5 * (2048 + 3) && Number(bars.fresh.lockfree) <= 5 * 2048, 'waves fit the pools');
  assert.match(await page.textContent('.board [data-metric=ns] .metric-label'), /the median of 5 runs, the line their range/);
  assert.equal(await page.locator('.board [data-metric=ns] .range').count(), 3);
  assert.equal(Number(bars.drops.shared) + Number(bars.drops.lockfree), 0, 'waves sized to the pools: nothing dropped');
  // Three verdicts, each only where the numbers allow it: no difference
  // (the runs' ranges overlap, whatever the medians), or a direction that
  // agrees with the medians. Which one a live run gives depends on the machine.
  const conclusion = await page.textContent('.board .conclusion');
  const why = await page.textContent('#why');
  if (/^Conclusion: No difference is measurable on this machine/.test(conclusion)) {
    assert.match(why, /No difference between the two pools is measurable on this machine: .* the runs' ranges overlap/);
  } else if (ns.lockfree < ns.shared) {
    assert.match(conclusion, /lock-free \d+(\.\d)?× faster than the shared pool/);
    assert.match(why, /A cross-thread return took [\d.,]+ ns on the lock-free pool .* every run of it faster than every run of the shared pool/);
  } else {
    assert.match(conclusion, /was not faster/);
    assert.match(why, /lock-free pool \([\d.,]+ ns per return\) was not faster/);
  }
  const counters = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('[data-counter]')]
    .map((d) => [d.dataset.counter, Number(d.textContent.replace(/,/g, ''))])));
  assert.equal(counters.returns, 5 * 2048);                                   // run 1, played wave by wave
  assert.equal(await page.locator('.slot.full').count(), 3);
  await goHash(page, '#flow=fanout&case=lockfree&consumers=3&step=end');
  assert.match(await page.textContent('#why'), /The lock-free pool over 5 runs: 51,200 cross-thread returns, [\d.,]+ ns each inside the returning threads \(the median of the runs/);
});

test('switching the fan-out\'s case keeps every pool\'s figures: the runs are not run again', async () => {
  await goHash(page, '#flow=fanout&case=shared&consumers=3&step=summary');
  const figures = () => page.$$eval('.board .bar-value', (vs) => vs.map((v) => v.dataset.value + ' ' + v.textContent));
  const before = await figures();
  for (const c of ['lockfree', 'nopool', 'shared']) {
    await goHash(page, `#flow=fanout&case=${c}&consumers=3&step=summary`);
    assert.deepEqual(await figures(), before, c);          // a new run would give other figures
  }
});

test('keyboard stepping and a deep link land on the expected step', async () => {
  await goHash(page, '#flow=writer&case=exceeds&scratch=8&text=ABCD&step=1');
  await page.focus('#play');
  await page.evaluate(() => document.activeElement.blur());
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('#position'), /^step 4 of/);
  await page.keyboard.press('ArrowLeft');
  assert.match(await page.textContent('#position'), /^step 3 of/);
  await page.waitForFunction(() => /step=3$/.test(location.hash));
  await page.keyboard.press('End');
  assert.equal(await page.evaluate(() => window.__player.model.cursor === window.__player.model.steps.length - 1), true);
  await page.keyboard.press('Home');
  assert.match(await page.textContent('#position'), /^step 1 of/);
  await page.keyboard.press('Space');
  assert.equal(await page.evaluate(() => window.__player.playing), true);
  await page.keyboard.press('Space');
  assert.equal(await page.evaluate(() => window.__player.playing), false);
  await page.goto(`${env.server.url}#flow=writer&case=exceeds&scratch=8&text=ABCD&step=5`);
  await ready(page);
  assert.match(await page.textContent('#position'), /^step 5 of/);
  const line = await page.evaluate(() => window.__player.model.steps[4].line);
  assert.equal(await page.locator('.code li.current').getAttribute('data-line'), String(line));
});

// A link's value the select does not offer runs the nearest one it offers:
// the select, the run and the URL agree.
test('a deep link with a value the select does not offer runs, shows and links the nearest one', async () => {
  for (const [hash, id, want, drawn] of [['#flow=writer&case=exceeds&scratch=16&text=ABCD&step=1', 'scratch', '8', /8 B/],
    ['#flow=compare&case=array&calls=7&step=1', 'calls', '200', null]]) {
    await page.goto(`${env.server.url}${hash}`);
    await ready(page);
    assert.equal(await page.inputValue(`#input-${id}`), want, hash);
    if (drawn) assert.match(await page.textContent('.buffer[data-kind=scratch] h3'), drawn);
    // The player writes the view into the URL a moment after drawing it: wait for that write.
    await page.waitForFunction(([k, v]) => new URLSearchParams(location.hash.slice(1)).get(k) === v, [id, want], { timeout: 10000 });
  }
});

test('typing into an input re-runs the module once typing pauses, and redraws', async () => {
  await goHash(page, '#flow=envelope&case=safe&before=AAAAAAAAAA&id=7&name=inner&step=outer-written');
  await page.fill('#input-before', '');
  await page.type('#input-before', 'BBB', { delay: 30 });
  await page.waitForFunction(() => /before=BBB/.test(location.hash) && document.body.dataset.ready === 'true');
  await goHash(page, '#flow=envelope&case=safe&before=BBB&id=7&name=inner&step=outer-written');
  assert.deepEqual(await cells(page, 'scratch', 5), ['93', 'A3', '42', '42', '42']);
  await page.selectOption('#speed', '4');
  await goHash(page, '#flow=writer&case=fits&scratch=8&text=hi&step=1');
  await page.selectOption('#input-scratch', '65536');
  await page.evaluate(() => window.__player.busy);
  assert.match(await page.textContent('.buffer[data-kind=scratch] h3'), /65,536 B/);
  assert.deepEqual(page.errors, []);
});

test('opened without isolation the page runs the single-threaded build and plays the recorded fan-out, labelled', async () => {
  const p = await openPage(env.browser.ctx, `${env.plain.url}#flow=envelope&case=legacy&step=inner-written`);
  assert.equal(await p.evaluate(() => crossOriginIsolated), false);
  assert.match(await p.textContent('#build'), /single-threaded/);
  assert.match(await p.textContent('#notice'), /not cross-origin isolated.*recorded/);
  assert.deepEqual(await cells(p, 'scratch', 12), OVERWRITTEN);
  await goHash(p, '#flow=fanout&case=lockfree&step=summary');
  assert.match(await p.textContent('.recorded'), /^Recorded run: the pthread build under Node/);
  assert.match(await p.textContent('#note'), /^Recorded: /);
  assert.equal(await p.locator('.board .bar-row').count(), 12);
  assert.equal(await p.locator('#input-consumers').isDisabled(), true);
  await p.screenshot({ path: join(shots, 'not-isolated-fanout.png'), fullPage: true });
  assert.deepEqual(p.errors, []);
  await p.close();
});
