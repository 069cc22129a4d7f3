// page.test.mjs -- the page in Debian's chromium: it loads cross-origin
// isolated without console errors, every flow plays to its end (with a
// screenshot of each in test-results/), the drawn bytes are the module's,
// keyboard and deep links land on the expected step, inputs re-run the
// module, and without isolation the page still works.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { join } from 'node:path';
import { cells, goHash, openPage, playToEnd, shots, startBrowser, startServer } from './harness.mjs';

const OVERWRITTEN = '93 07 A5 69 6E 6E 65 72 CB 3F F8 00'.split(' ');
const INTACT = '93 AA 41 41 41 41 41 41 41 41 41 41'.split(' ');

let server, browser, page;
before(async () => {
  server = await startServer();
  browser = await startBrowser();
  page = await openPage(browser.ctx, server.url);
});
after(async () => {
  await browser?.stop();
  server?.stop();
});

test('the page loads cross-origin isolated with the pthread build and no console error', async () => {
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);
  assert.match(await page.textContent('#build'), /pthreads/);
  assert.equal(await page.isHidden('#notice'), true);
  assert.deepEqual(page.errors, []);
});

test('every case of every flow plays to its end', async () => {
  const flows = await page.evaluate(() => [...document.querySelectorAll('#tabs [role=tab]')].map((b) => b.dataset.flow));
  assert.deepEqual(flows, ['writer', 'envelope', 'compare', 'fanout']);
  const cases = { writer: ['fits', 'exceeds'], envelope: ['legacy', 'output', 'safe'], compare: ['array', 'output', 'stream'], fanout: ['shared', 'lockfree'] };
  for (const flow of flows) {
    for (const c of cases[flow]) {
      await goHash(page, `#flow=${flow}&case=${c}&step=1`);
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

test('after the nested call in legacy mode the first 12 scratch cells are the inner result', async () => {
  await goHash(page, '#flow=envelope&case=legacy&before=AAAAAAAAAA&id=7&name=inner&step=outer-written');
  assert.deepEqual(await cells(page, 'scratch', 12), INTACT);                 // as the outer call wrote them
  await goHash(page, '#flow=envelope&case=legacy&before=AAAAAAAAAA&id=7&name=inner&step=inner-written');
  assert.deepEqual(await cells(page, 'scratch', 12), OVERWRITTEN);
  assert.equal(await page.locator('.buffer[data-kind=scratch] .cell.overwritten').count(), 12);
  await goHash(page, '#flow=envelope&case=legacy&before=AAAAAAAAAA&id=7&name=inner&step=outer-return');
  const drawn = await page.evaluate(() => [...document.querySelectorAll('.buffer[data-kind=result]')].pop()
    .querySelectorAll('.cell').length);
  const real = await page.evaluate(() => Array.from(window.__player.model.result, (b) => b.toString(16).toUpperCase().padStart(2, '0')));
  assert.deepEqual(real.slice(0, 12), OVERWRITTEN);                            // the module's own result
  const lastResult = await page.evaluate(() => [...[...document.querySelectorAll('.buffer[data-kind=result]')].pop()
    .querySelectorAll('.cell')].map((c) => c.textContent));
  assert.deepEqual(lastResult.slice(0, drawn), real.slice(0, drawn));
  assert.match(await page.textContent('#out'), /read back fails: SP_E_TYPE at byte 1/);
});

test('in the safe modes the outer bytes stay 93 AA 41 …', async () => {
  await goHash(page, '#flow=envelope&case=output&before=AAAAAAAAAA&id=7&name=inner&step=outer-return');
  assert.deepEqual(await cells(page, 'output', 12), INTACT);
  assert.match(await page.textContent('#out'), /Before="AAAAAAAAAA" Inner.Id=7/);
  await goHash(page, '#flow=envelope&case=safe&before=AAAAAAAAAA&id=7&name=inner&step=inner-written');
  assert.deepEqual(await cells(page, 'scratch', 12), INTACT);
  assert.deepEqual(await cells(page, 'segment', 12), OVERWRITTEN);             // the inner call's own segment
  await goHash(page, '#flow=envelope&case=safe&before=AAAAAAAAAA&id=7&name=inner&step=outer-return');
  const real = await page.evaluate(() => Array.from(window.__player.model.result.slice(0, 12), (b) => b.toString(16).toUpperCase().padStart(2, '0')));
  assert.deepEqual(real, INTACT);
});

test('with an 8-byte scratch the migration step copies 7 bytes into the first segment', async () => {
  await goHash(page, '#flow=writer&case=exceeds&scratch=8&text=ABCD&step=migrate');
  assert.match(await page.textContent('#why'), /segment 0.*the 7 bytes written so far/);
  assert.deepEqual(await cells(page, 'segment', 7), '97 01 02 03 04 05 06'.split(' '));
  assert.equal(await page.locator('.buffer[data-kind=segment] .cell.copied').count(), 7);
  assert.equal(await page.locator('.code li.current').getAttribute('data-line'), '4');
});

test('keyboard stepping and a deep link land on the expected step', async () => {
  await goHash(page, '#flow=writer&case=exceeds&scratch=8&text=ABCD&step=1');
  await page.focus('#play');
  await page.evaluate(() => document.activeElement.blur());
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('#position'), /^step 4 of/);
  await page.keyboard.press('ArrowLeft');
  assert.match(await page.textContent('#position'), /^step 3 of/);
  assert.match(await page.evaluate(() => location.hash), /step=3/);
  await page.keyboard.press('Space');
  assert.equal(await page.evaluate(() => window.__player.playing), true);
  await page.keyboard.press('Space');
  assert.equal(await page.evaluate(() => window.__player.playing), false);
  await page.goto(`${server.url}#flow=writer&case=exceeds&scratch=8&text=ABCD&step=5`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true' && window.__player?.model);
  assert.match(await page.textContent('#position'), /^step 5 of/);
  const line = await page.evaluate(() => window.__player.model.steps[4].line);
  assert.equal(await page.locator('.code li.current').getAttribute('data-line'), String(line));
});

test('changing an input re-runs the module and redraws', async () => {
  await goHash(page, '#flow=envelope&case=safe&before=AAAAAAAAAA&id=7&name=inner&step=outer-written');
  await page.fill('#input-before', 'BBB');
  await page.evaluate(async () => {
    document.getElementById('input-before').dispatchEvent(new Event('change'));
    await window.__player.busy;
  });
  assert.match(await page.evaluate(() => location.hash), /before=BBB/);
  await goHash(page, '#flow=envelope&case=safe&before=BBB&id=7&name=inner&step=outer-written');
  assert.deepEqual(await cells(page, 'scratch', 5), ['93', 'A3', '42', '42', '42']);
  await page.selectOption('#speed', '4');
  await goHash(page, '#flow=writer&case=fits&scratch=8&text=hi&step=1');
  await page.selectOption('#input-scratch', '65536');
  await page.evaluate(() => window.__player.busy);
  assert.match(await page.textContent('.buffer[data-kind=scratch] h3'), /65,536 B/);
  assert.deepEqual(page.errors, []);
});

test('the fan-out shows live counters of both pools', async () => {
  await goHash(page, '#flow=fanout&case=shared&consumers=3&step=end');
  const counters = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('[data-counter]')]
    .map((d) => [d.dataset.counter, Number(d.textContent.replace(/,/g, ''))])));
  assert.equal(counters.returns, 6 + 12 + 24 + 96 + 384 + 1024 + 1024);
  assert.ok('lock waits' in counters);
  assert.equal(await page.locator('.slot.full').count(), 3);
  await goHash(page, '#flow=fanout&case=lockfree&consumers=3&step=end');
  assert.match(await page.textContent('#out'), /lock-free pool: 0 lock waits/);
});

test('opened without isolation the page runs the single-threaded build and says so', async () => {
  const plain = await startServer({ isolated: false });
  try {
    const p = await openPage(browser.ctx, `${plain.url}#flow=envelope&case=legacy&step=inner-written`);
    assert.equal(await p.evaluate(() => crossOriginIsolated), false);
    assert.match(await p.textContent('#build'), /single-threaded/);
    assert.match(await p.textContent('#notice'), /not cross-origin isolated/);
    assert.deepEqual(await cells(p, 'scratch', 12), OVERWRITTEN);
    await goHash(p, '#flow=fanout&case=shared');
    assert.match(await p.textContent('#why'), /npm start/);
    await p.screenshot({ path: join(shots, 'not-isolated-fanout.png'), fullPage: true });
    assert.deepEqual(p.errors, []);
    await p.close();
  } finally {
    plain.stop();
  }
});
