// phone.test.mjs -- the page at 360 and 390 px wide: no flow scrolls
// sideways, the playback bar stays on screen wherever the reader scrolls,
// the step's explanation and memory are on screen above it as the page
// opens, the page's end scrolls clear of the bar (at 320 px and on a short
// screen too, where the bar is not fixed), the code is collapsed and opens
// on demand (and again after a resize across 900 px), and the layout stays
// put from step to step. Every page here is opened with ?recorded: the
// fan-out plays its recorded run, so no layout depends on this machine's
// speed (its live sentence wraps differently from run to run).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { join } from 'node:path';
import { goHash, openPage, shots, useBrowser } from './harness.mjs';

const CASES = ['#flow=writer&case=fits', '#flow=writer&case=exceeds&scratch=65536', '#flow=envelope&case=legacy',
  '#flow=envelope&case=safe', '#flow=compare&case=array', '#flow=fanout&case=shared', '#flow=fanout&case=nopool'];

const env = useBrowser();

// Where things are, in viewport pixels.
const boxes = (page) => page.evaluate(() => {
  const r = (s) => document.querySelector(s).getBoundingClientRect();
  return { width: innerWidth, height: innerHeight, scrollWidth: document.documentElement.scrollWidth,
    bar: r('.transport'), play: r('#play'), scrub: r('#scrub'), why: document.querySelector('#caption .cap.on') ? r('#caption .cap.on') : document.getElementById('why').textContent, memory: r('#memory') };
});

for (const width of [360, 390]) {
  test(`at ${width} px: no sideways scroll, the bar always on screen, the explanation and memory above it`, async () => {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=writer`, { viewport: { width, height: 800 } });
    for (const h of CASES) {
      await goHash(page, h);
      for (const at of ['first', 'last']) {
        await page.keyboard.press(at === 'first' ? 'Home' : 'End');
        await page.evaluate(() => window.scrollTo(0, 0));
        const b = await boxes(page);
        assert.ok(b.scrollWidth <= b.width, `${h} ${at}: ${b.scrollWidth} px wide at ${width}`);
        for (const k of ['play', 'scrub']) assert.ok(b[k].top >= 0 && b[k].bottom <= b.height && b[k].right <= b.width, `${h}: ${k} on screen`);
        assert.ok(b.why.top < b.bar.top && b.why.bottom > 0, `${h} ${at}: the explanation is on screen (${b.why.top})`);
        assert.ok(b.memory.top + 40 < b.bar.top, `${h} ${at}: memory starts on screen above the bar (${b.memory.top} < ${b.bar.top})`);
      }
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      const b = await boxes(page);
      assert.ok(b.play.top >= 0 && b.play.bottom <= b.height, `${h}: play on screen at the bottom of the page`);
    }
    await page.screenshot({ path: join(shots, `phone-${width}.png`) });
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test('on a phone the code is collapsed, says its current line, and opens', async () => {
  const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=envelope&case=legacy&step=inner-written`, { viewport: { width: 390, height: 844 } });
  assert.equal(await page.evaluate(() => document.getElementById('code-box').open), false);
  assert.equal(await page.isVisible('#code li'), false);
  assert.match(await page.textContent('#code-summary'), /^line 7: Serialize\(ref msgpackWriter/);
  await page.click('#code-box > summary');
  assert.equal(await page.isVisible('#code li.current'), true);
  await page.close();
});

test('the playback bar stays put from flow to flow', async () => {
  for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=writer`, { viewport });
    const at = new Set();
    for (const flow of ['writer', 'envelope', 'compare', 'fanout']) {
      await page.click(`#tab-${flow}`);
      await page.evaluate(() => window.__player.busy);
      at.add(await page.$eval('#play', (p) => { const r = p.getBoundingClientRect(); return `${Math.round(r.left)},${Math.round(r.top)}`; }));
    }
    assert.equal(at.size, 1, `${viewport.width}: play at ${[...at].join(' | ')}`);
    await page.close();
  }
});

test('the memory and the playback bar stay put from step to step', async () => {
  for (const [viewport, h] of [[{ width: 1440, height: 900 }, '#flow=envelope&case=legacy'], [{ width: 390, height: 844 }, '#flow=envelope&case=legacy'],
    [{ width: 1440, height: 900 }, '#flow=writer&case=exceeds&scratch=65536'], [{ width: 1440, height: 900 }, '#flow=fanout&case=shared']]) {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded${h}`, { viewport });
    const seen = new Set();
    const n = await page.evaluate(() => window.__player.model.steps.length);
    for (let i = 0; i < n; i++) {
      const b = await page.evaluate(() => {
        const m = document.getElementById('memory').getBoundingClientRect(), p = document.getElementById('play').getBoundingClientRect();
        const cells = document.querySelectorAll('#memory .buffer .cell').length;
        return `memory at ${Math.round(m.top + scrollY)}, play at ${Math.round(p.left)},${Math.round(p.top)}, ${cells} cells`;
      });
      seen.add(b);
      await page.keyboard.press('ArrowRight');
    }
    assert.equal(seen.size, 1, `${viewport.width} ${h}: ${[...seen].join(' | ')}`);
    await page.close();
  }
});

// Every element on screen, at every step: none reaches past the screen's
// edges, none has content wider than its box (clipped or spilling); where
// the step's words end and the memory and the playback bar start.
function overflows() {
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    // Hidden, or kept for screen readers only (clipped to nothing).
    if (el.closest('.sr-only') || !el.checkVisibility({ visibilityProperty: true }) || getComputedStyle(el).clip !== 'auto') continue;
    const r = el.getBoundingClientRect();
    const name = `${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}"`;
    if (r.width > 0 && (r.left < -0.5 || r.right > innerWidth + 0.5)) out.push(`${name} spans ${Math.round(r.left)}–${Math.round(r.right)}`);
    const scrolls = ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
    if (!scrolls && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) out.push(`${name} holds ${el.scrollWidth} px in ${el.clientWidth}`);
  }
  scrollTo(0, 0);
  const top = (s) => document.querySelector(s).getBoundingClientRect().top;
  return { out: [...new Set(out)].slice(0, 6), wide: document.documentElement.scrollWidth, memory: Math.round(top('#memory')),
    why: document.querySelector('#caption .cap.on').getBoundingClientRect().bottom, bar: top('.transport') };
}

test('?recorded=longest: the fan-out\'s longest sentences overflow nothing on a phone, and leave its words and memory on the first screen, at any step', async () => {
  for (const viewport of [{ width: 360, height: 800 }, { width: 390, height: 844 }]) {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded=longest#flow=fanout&case=shared`, { viewport });
    assert.match(await page.textContent('.recorded'), /^Not a measurement: figures made up so that every sentence takes its longest form/);
    for (const c of ['shared', 'lockfree', 'nopool']) {
      await goHash(page, `#flow=fanout&case=${c}`);
      const n = await page.evaluate(() => window.__player.model.steps.length);
      await page.keyboard.press('Home');
      const at = new Set();
      for (let i = 0; i < n; i++) {
        const r = await page.evaluate(overflows);
        assert.deepEqual(r.out, [], `${viewport.width} ${c} step ${i + 1}`);
        assert.ok(r.wide <= viewport.width, `${viewport.width} ${c} step ${i + 1}: the page is ${r.wide} px wide`);
        // As the page opens: the words on screen, the memory starting above the bar.
        assert.ok(r.why < r.bar && r.memory + 40 < r.bar, `${viewport.width} ${c} step ${i + 1}: words end at ${r.why}, memory starts at ${r.memory}, the bar at ${r.bar}`);
        at.add(r.memory);
        await page.keyboard.press('ArrowRight');
      }
      assert.equal(at.size, 1, `${viewport.width} ${c}: the memory moved (${[...at]})`);
    }
    await page.screenshot({ path: join(shots, `phone-longest-${viewport.width}.png`), fullPage: true });
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

// Scrolled to the bottom: where the page's last visible content ends, and
// what of the window the playback bar leaves to it (all of it when the bar
// is not fixed).
function pageEnd() {
  scrollTo(0, document.documentElement.scrollHeight);
  const bar = document.querySelector('.transport');
  const fixed = getComputedStyle(bar).position === 'fixed';
  let end = 0, last = '';
  for (const el of document.querySelectorAll('main *, header *')) {
    if (bar.contains(el) || el.closest('.sr-only') || !el.checkVisibility()) continue;
    const r = el.getBoundingClientRect();
    if (r.height > 0 && r.bottom > end) { end = r.bottom; last = `${el.tagName.toLowerCase()} "${el.textContent.trim().slice(0, 30)}"`; }
  }
  const b = bar.getBoundingClientRect();
  return { end, last, fixed, barTop: fixed ? b.top : innerHeight, barHeight: b.height, height: innerHeight };
}

for (const viewport of [{ width: 320, height: 800 }, { width: 320, height: 256 }, { width: 390, height: 844 }]) {
  test(`at ${viewport.width}x${viewport.height} the page's end scrolls clear of the playback bar, which takes at most a third of the screen`, async () => {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=fanout&case=shared&step=8`, { viewport });
    for (const open of [false, true]) {
      await page.evaluate((o) => { document.getElementById('code-box').open = o; }, open);
      const r = await page.evaluate(pageEnd);
      assert.ok(r.end <= r.barTop + 0.5, `code ${open ? 'open' : 'closed'}: ${r.last} ends at ${r.end}, under the bar at ${r.barTop}`);
      if (r.fixed) assert.ok(r.barHeight <= r.height / 3, `a fixed bar ${r.barHeight} px tall in a ${r.height} px window`);
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test('a resize across 900 px opens the code panel (whose summary is hidden from 900 px) and unfolds the buffers; back under 900 px its summary opens it', async () => {
  const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=envelope&case=safe&step=outer-return`, { viewport: { width: 820, height: 1180 } });
  const state = () => page.evaluate(() => ({ open: document.getElementById('code-box').open, folds: document.querySelectorAll('#memory details.fold').length }));
  let s = await state();
  assert.equal(s.open, false);
  assert.ok(s.folds > 0, 'narrow: the unchanged buffers fold');
  await page.setViewportSize({ width: 1180, height: 820 });
  // The page's media query listener runs after the resize: wait for its effect (it never comes without the fix).
  await page.waitForFunction(() => document.getElementById('code-box').open, null, { timeout: 10000 });
  assert.equal(await page.isVisible('#code li.current'), true);
  await page.waitForFunction(() => document.querySelectorAll('#memory details.fold').length === 0, null, { timeout: 10000 });
  await page.setViewportSize({ width: 820, height: 1180 });
  await page.waitForFunction(() => !document.getElementById('code-box').open, null, { timeout: 10000 });
  assert.equal(await page.isVisible('#code-box > summary'), true);
  await page.click('#code-box > summary');
  assert.equal(await page.isVisible('#code li.current'), true);
  s = await state();
  assert.ok(s.folds > 0, 'narrow again: the unchanged buffers fold again');
  assert.deepEqual(page.errors, []);
  await page.close();
});
