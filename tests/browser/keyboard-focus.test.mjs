// keyboard-focus.test.mjs -- keyboard focus on a phone: Tab never lands on
// something the fixed playback bar covers (WCAG 2.4.11), and focus stays
// where the reader put it when the arrow keys change the case (the radios
// are rebuilt) or step the animation (the buffers are redrawn). Opened with
// ?recorded; nothing here depends on the machine's speed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPage, useBrowser } from './harness.mjs';

const PHONE = { width: 360, height: 740 };
const env = useBrowser();

// The focused element's share of area under the playback bar (0 when it is in the bar itself).
const coveredByBar = (page) => page.evaluate(() => {
  const a = document.activeElement, bar = document.querySelector('.transport');
  if (a === null || bar.contains(a)) return 0;
  const r = a.getBoundingClientRect(), top = bar.getBoundingClientRect().top;
  return r.height === 0 ? 0 : Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, top)) / r.height;
});

const focusName = (page) => page.evaluate(() => {
  const a = document.activeElement;
  return a === document.body ? 'BODY' : `${a.tagName}${a.id ? `#${a.id}` : ''} ${a.textContent.trim().slice(0, 40)}`;
});

for (const hash of ['#flow=envelope&case=legacy&step=1', '#flow=writer&case=exceeds&step=1', '#flow=compare&case=array&step=4']) {
  test(`phone, ${hash}: no Tab stop sits under the playback bar`, async () => {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded${hash}`, { viewport: PHONE });
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      const covered = await coveredByBar(page);
      assert.ok(covered < 0.25, `Tab stop ${i + 1} (${await focusName(page)}) is ${Math.round(covered * 100)}% under the bar`);
    }
    await page.close();
  });
}

test('phone: arrow keys on the case radios keep focus on the radio of the chosen case', async () => {
  const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=writer&case=fits&step=1`, { viewport: PHONE });
  await page.focus('#cases input:checked');
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => /case=exceeds/.test(location.hash));
  await page.evaluate(() => window.__player.busy);
  assert.match(await focusName(page), /^INPUT#case-exceeds/);
  await page.close();
});

test('phone: stepping with focus on a folded buffer keeps focus on that buffer', async () => {
  const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=writer&case=exceeds&step=3`, { viewport: PHONE });
  await page.focus('#memory summary');
  const before = await focusName(page);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => /step=4/.test(location.hash) || document.getElementById('position').textContent.startsWith('step 4'));
  const after = await focusName(page);
  assert.notEqual(after, 'BODY');
  assert.equal(after.split(' ')[0], before.split(' ')[0]);
  assert.match(after, /scratch/);
  await page.close();
});
