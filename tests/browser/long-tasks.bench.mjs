// long-tasks.bench.mjs -- a measurement (npm run bench:page), not part of
// npm test: what it checks depends on the machine's load. The page stays
// responsive: a long-task observer
// (PerformanceObserver 'longtask', which reports every main-thread task over
// 50 ms) sees nothing over 100 ms on any interaction -- switching flows and
// cases, stepping, playing, scrubbing, typing into the inputs of the
// 65,536 B writer case, the 2,000-call measurements, the fan-out -- because
// the module runs in the page's worker. (The busy state a longer run shows
// is a test: busy.test.mjs.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goHash, openPage, ready, takeLongTasks, useBrowser, watchLongTasks } from './harness.mjs';

const LIMIT_MS = 100;

let page;                           // one page for every test here
const env = useBrowser({ open: async (env) => { page = await openPage(env.browser.ctx, `${env.server.url}#flow=writer&case=exceeds&scratch=65536&text=ABCD`,
    { viewport: { width: 1440, height: 900 }, init: [watchLongTasks] }); } });

async function within(what, fn) {
  await takeLongTasks(page);
  await fn();
  await ready(page);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 60))));   // the observer reports
  const all = await takeLongTasks(page);
  if (process.env.SP_DEBUG && all.length) console.log(what, JSON.stringify(all));
  const long = all.filter((t) => t.ms > LIMIT_MS);
  assert.deepEqual(long, [], `${what}: main-thread tasks over ${LIMIT_MS} ms`);
}

test('the observer sees a long task when there is one', async () => {
  await takeLongTasks(page);
  // In a task of the page's own (code run by page.evaluate is not a task the observer reports).
  await page.evaluate(() => new Promise((r) => setTimeout(() => {
    const t = performance.now();
    while (performance.now() - t < 150);
    setTimeout(r, 60);
  }, 0)));
  const long = await takeLongTasks(page);
  assert.ok(long.some((t) => t.ms >= 150), JSON.stringify(long));
});

test('typing into the 65,536 B writer case makes no long task', async () => {
  for (const text of ['A', 'AB', 'A한']) {
    await within(`typing ${text}`, async () => {
      await page.fill('#input-text', '');
      await page.type('#input-text', text, { delay: 40 });
      await page.waitForFunction((t) => location.hash.includes(`text=${encodeURIComponent(t)}`), text);
    });
    assert.match(await page.textContent('#note'), /repeated [\d,]+ times/);
  }
  await within('the scratch size', () => page.selectOption('#input-scratch', '8'));
  await within('the scratch size back', () => page.selectOption('#input-scratch', '65536'));
});

test('switching flows and cases, stepping, playing and scrubbing make no long task', async () => {
  for (const flow of ['envelope', 'compare', 'fanout', 'writer']) {
    await within(`the ${flow} tab`, () => page.click(`#tab-${flow}`));
    const cases = await page.$$eval('#cases input', (rs) => rs.map((r) => r.id));
    for (const id of cases.slice(1)) await within(`${flow}: ${id}`, () => page.click(`label[for=${id}]`));
    await within(`${flow}: stepping`, async () => {
      await page.evaluate(() => document.activeElement.blur());
      for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
      await page.keyboard.press('End');
      await page.keyboard.press('Home');
    });
    await within(`${flow}: playing`, async () => {
      await page.selectOption('#speed', '4');
      await page.click('#play');
      await page.waitForTimeout(1000);                 // three steps at 4×, each drawn in a frame of the page's
      if (await page.evaluate(() => window.__player.playing)) await page.click('#play');
    });
    await within(`${flow}: scrubbing`, async () => {
      await page.focus('#scrub');
      for (const key of ['Home', 'ArrowRight', 'ArrowRight', 'End', 'ArrowLeft']) await page.keyboard.press(key);
    });
  }
});

