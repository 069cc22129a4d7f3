// phone-context.test.mjs -- a phone (390x844 and 360x800) opens with
// context: the first screen says what the page is and what to press; every
// flow tab is on screen without sideways scrolling (the strip wraps); no
// text is under 12 px on any flow; the legend sits right above the cells it
// explains. The pages are opened with ?recorded (the fan-out plays its
// recorded run), so nothing here depends on this machine's speed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goHash, openPage, useBrowser } from './harness.mjs';

const PHONES = [{ width: 390, height: 844 }, { width: 360, height: 800 }];
const HASHES = ['#flow=writer&case=exceeds&scratch=65536', '#flow=envelope&case=legacy', '#flow=compare&case=array', '#flow=fanout&case=shared'];

const env = useBrowser({ plain: true });

test('?recorded plays the recorded fan-out where threads are available, labelled; the notice without isolation has no raw backticks', async () => {
  const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=fanout&case=shared`, { viewport: PHONES[0] });
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);
  assert.match(await page.textContent('.recorded'), /^Recorded run: /);
  assert.deepEqual(page.errors, []);
  await page.close();
  const without = await openPage(env.browser.ctx, `${env.plain.url}#flow=fanout`, { viewport: PHONES[0] });
  const text = await without.textContent('#notice');
  assert.match(text, /not cross-origin isolated/);
  assert.doesNotMatch(text, /`/);
  await without.close();
});

for (const viewport of PHONES) {
  test(`at ${viewport.width}x${viewport.height}: the first screen says what this is and what to press`, async () => {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded`, { viewport });
    const lead = await page.evaluate(() => {
      const bar = document.querySelector('.transport').getBoundingClientRect();
      const el = document.getElementById('lead');
      const r = el?.getBoundingClientRect();
      return el && { text: el.textContent, top: r.top, bottom: r.bottom, barTop: bar.top, visible: el.checkVisibility() };
    });
    assert.ok(lead, 'no #lead');
    assert.ok(lead.visible && lead.top >= 0 && lead.bottom <= lead.barTop, `the lead is not on the first screen: ${JSON.stringify(lead)}`);
    assert.match(lead.text, /MessagePack/);
    assert.match(lead.text, /memory/);
    assert.match(lead.text, /Play/);
    await page.close();
  });

  test(`at ${viewport.width}x${viewport.height}: every tab is on screen without sideways scrolling`, async () => {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded`, { viewport });
    const t = await page.evaluate(() => {
      const strip = document.getElementById('tabs');
      return { strip: [strip.scrollWidth, strip.clientWidth], width: innerWidth,
        tabs: [...strip.querySelectorAll('[role=tab]')].map((b) => { const r = b.getBoundingClientRect(); return [b.id, r.left, r.right]; }) };
    });
    assert.equal(t.tabs.length, 4);
    assert.ok(t.strip[0] <= t.strip[1], `the tab strip scrolls: ${t.strip}`);
    for (const [id, left, right] of t.tabs) assert.ok(left >= 0 && right <= t.width, `${id}: ${left}-${right} of ${t.width}`);
    await page.close();
  });

  test(`at ${viewport.width}x${viewport.height}: no text under 12 px, the legend right above the cells`, async () => {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=writer`, { viewport });
    for (const h of HASHES) {
      await goHash(page, h);
      for (const key of ['Home', 'End']) {
        await page.keyboard.press(key);
        const small = await page.evaluate(() => {
          const out = [];
          const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let n = walk.nextNode(); n; n = walk.nextNode()) {
            const el = n.parentElement;
            if (!n.textContent.trim() || !el.checkVisibility({ visibilityProperty: true }) || el.closest('.sr-only')) continue;
            const size = parseFloat(getComputedStyle(el).fontSize);
            if (size < 12) out.push(`${el.tagName.toLowerCase()}.${el.className} "${n.textContent.trim().slice(0, 20)}" ${size}px`);
          }
          return [...new Set(out)].slice(0, 8);
        });
        assert.deepEqual(small, [], `${h} ${key}`);
      }
      // Right above the memory it explains, nothing between them.
      const gap = await page.evaluate(() => {
        const legend = document.getElementById('legend').getBoundingClientRect();
        const memory = document.getElementById('memory').getBoundingClientRect();
        return { legendBottom: legend.bottom, memoryTop: memory.top };
      });
      assert.ok(gap.legendBottom <= gap.memoryTop && gap.memoryTop - gap.legendBottom <= 16,
        `${h}: the legend ends at ${gap.legendBottom}, the memory starts at ${gap.memoryTop}`);
    }
    await page.close();
  });
}

// With the intro open (it scrolls in a box of its own on a phone), every
// step's explanation ends on the first screen above the playback bar; in
// the writer flow (the one the page opens with) and the three entries, the
// step's changed cells end within a screen and a half. Geometry only: the
// pages play recorded or deterministic flows.
const WORDS_FIRST = ['#flow=writer&case=fits', '#flow=writer&case=exceeds', '#flow=compare&case=array',
  '#flow=writer&case=exceeds&scratch=65536', '#flow=envelope&case=legacy', '#flow=envelope&case=safe'];
const CELLS_TOO = new Set(WORDS_FIRST.slice(0, 3));
for (const viewport of PHONES) {
  test(`at ${viewport.width}x${viewport.height} with the intro open: each step's words on the first screen, its changed cells within 1.5 screens`, async () => {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=writer`, { viewport });
    await page.click('#intro > summary');
    assert.equal(await page.evaluate(() => document.getElementById('intro').open), true);
    for (const h of WORDS_FIRST) {
      await goHash(page, h);
      const n = await page.evaluate(() => window.__player.model.steps.length);
      await page.keyboard.press('Home');
      for (let i = 0; i < n; i++) {
        const r = await page.evaluate(() => {
          scrollTo(0, 0);
          const changed = [...document.querySelectorAll('#memory .cell.changed')].map((c) => c.getBoundingClientRect().bottom);
          return { why: document.querySelector('#caption .cap.on').getBoundingClientRect().bottom,
            bar: document.querySelector('.transport').getBoundingClientRect().top, cells: changed.length ? Math.max(...changed) : 0 };
        });
        assert.ok(r.why <= r.bar, `${h} step ${i + 1}: the explanation ends at ${r.why}, the bar starts at ${r.bar}`);
        if (CELLS_TOO.has(h)) assert.ok(r.cells <= 1.5 * viewport.height, `${h} step ${i + 1}: changed cells end at ${r.cells}`);
        await page.keyboard.press('ArrowRight');
      }
    }
    await page.close();
  });
}
