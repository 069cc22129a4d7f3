// touch.test.mjs -- the page on a phone as a phone presents it (390x844, a
// mobile viewport, touch, 3 device pixels per px): the targets a finger
// uses are at least 44 px tall (the case choices, the playback buttons, the
// scrubber, the speed and the inputs; the tabs and the buffers' folds at
// least 24 px); a click anywhere on a case picks it; axe-core finds no
// serious or critical violation there; and with those targets
// the step's words and memory still start on the first screen, above the
// bar. Opened with ?recorded: nothing depends on the machine's speed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeViolations, goHash, openPage, startPhone, startServer } from './harness.mjs';

let server, phone;
before(async () => { server = await startServer(); phone = await startPhone(); });
after(async () => { await phone?.stop(); server?.stop(); });

// The height of every element `selector` matches that is on screen.
const heights = (page, selector) => page.$$eval(selector, (els) => els.filter((e) => e.checkVisibility())
  .map((e) => [e.id || e.className || e.tagName, Math.round(e.getBoundingClientRect().height * 10) / 10]));

test('on a touch phone the targets are 44 px tall (tabs and folds at least 24 px)', async () => {
  const page = await openPage(phone.ctx, `${server.url}?recorded#flow=writer&case=fits`);
  assert.equal(await page.evaluate(() => matchMedia('(pointer: coarse)').matches), true, 'a touch screen');
  await page.click('#inputs-box > summary');
  const small = [];
  for (const [hash, selectors] of [['#flow=writer&case=fits', ['#cases .case', '.transport button', '#scrub', '#speed', '#inputs select', '#inputs input']],
    ['#flow=compare&case=array', ['#cases .case', '#inputs select']], ['#flow=fanout&case=shared', ['#cases .case', '#inputs select']]]) {
    await goHash(page, hash);
    await page.evaluate(() => { document.getElementById('inputs-box').open = true; });
    for (const s of selectors) for (const [name, h] of await heights(page, s)) if (h < 44) small.push(`${hash} ${s} ${name}: ${h} px`);
  }
  await goHash(page, '#flow=envelope&case=safe&step=outer-return');
  for (const s of ['#tabs [role=tab]', '#memory .fold > summary']) {
    const hs = await heights(page, s);
    assert.ok(hs.length > 0, `${s} drawn`);
    for (const [name, h] of hs) if (h < 24) small.push(`${s} ${name}: ${h} px`);
  }
  assert.deepEqual(small, []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a click anywhere on a case picks it, not only on its radio or words', async () => {
  const page = await openPage(phone.ctx, `${server.url}?recorded#flow=envelope&case=legacy`);
  const box = await page.locator('#cases .case').nth(2).boundingBox();
  // Its top edge, half way along: over neither the radio nor the words. A
  // click, not a tap: a tap is moved onto the nearest target by the browser.
  await page.mouse.click(box.x + box.width / 2, box.y + 2);
  await page.waitForFunction(() => window.__player.model?.caseIndex === 2 && document.body.dataset.ready === 'true', null, { timeout: 10000 });
  assert.equal(await page.isChecked('#case-safe'), true);
  await page.close();
});

test('on a touch phone the step\'s words and memory start on the first screen, above the bar', async () => {
  const page = await openPage(phone.ctx, `${server.url}?recorded#flow=writer`);
  for (const h of ['#flow=writer&case=exceeds&scratch=65536', '#flow=envelope&case=legacy', '#flow=compare&case=array', '#flow=fanout&case=shared']) {
    await goHash(page, h);
    const r = await page.evaluate(() => {
      scrollTo(0, 0);
      const top = (s) => document.querySelector(s).getBoundingClientRect();
      return { why: top('#caption .cap.on').bottom, memory: top('#memory').top, bar: top('.transport').top };
    });
    assert.ok(r.why <= r.bar && r.memory + 40 < r.bar, `${h}: words end at ${r.why}, memory starts at ${r.memory}, the bar at ${r.bar}`);
  }
  await page.close();
});

test('on a touch phone axe-core finds no serious or critical violation', async () => {
  const page = await openPage(phone.ctx, `${server.url}?recorded#flow=writer`);
  const found = [];
  for (const h of ['#flow=writer&case=exceeds&scratch=65536&step=ensure-miss', '#flow=envelope&case=legacy&step=outer-return',
    '#flow=compare&case=stream&step=measured-big', '#flow=fanout&case=shared&step=return-1']) {
    await goHash(page, h);
    for (const v of await axeViolations(page)) found.push(`${h}: ${v}`);
  }
  assert.deepEqual(found, []);
  await page.close();
});
