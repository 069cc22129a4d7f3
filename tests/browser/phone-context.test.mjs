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
// step of every flow and case: its explanation ends on the first screen
// above the playback bar, and its changed cells end within a screen and a
// quarter (the buffers a step does not change fold to their title line).
// Geometry only: the pages play recorded or deterministic flows.
const EVERY = ['#flow=writer&case=fits', '#flow=writer&case=exceeds', '#flow=writer&case=fits&scratch=65536',
  '#flow=writer&case=exceeds&scratch=65536', '#flow=envelope&case=legacy', '#flow=envelope&case=output', '#flow=envelope&case=safe',
  '#flow=compare&case=array', '#flow=compare&case=output', '#flow=compare&case=stream',
  '#flow=fanout&case=shared', '#flow=fanout&case=lockfree', '#flow=fanout&case=nopool'];

// Goes to a hash and waits until the player shows that flow and case. The
// player writes the view into the URL a moment after each step; a link set
// just before that write is overwritten, so the link is set again until the
// player shows it (the page's behaviour, not a guess at its timing).
async function goTo(page, h) {
  const want = new URLSearchParams(h.slice(1));
  const shows = () => page.evaluate(([f, c]) => {
    const p = window.__player;
    return p.model.flowId === f && p.flow.id === f && p.flow.cases[p.model.caseIndex]?.id === c && document.body.dataset.busy !== 'true';
  }, [want.get('flow'), want.get('case')]);
  for (let attempt = 0; attempt < 5; attempt++) {
    await goHash(page, h);
    if (await shows()) return;
    await page.waitForFunction(() => document.body.dataset.busy !== 'true');
  }
  const at = await page.evaluate(() => [window.__player.model.flowId, window.__player.model.caseIndex, location.hash]);
  throw new Error(`${h}: the page shows ${JSON.stringify(at)}`);
}

for (const viewport of PHONES) {
  test(`at ${viewport.width}x${viewport.height} with the intro open: every step's words on the first screen, its changed cells within 1.25 screens`, async () => {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=writer`, { viewport });
    await page.click('#intro > summary');
    assert.equal(await page.evaluate(() => document.getElementById('intro').open), true);
    let steps = 0, withCells = 0;
    for (const h of EVERY) {
      await goTo(page, h);
      const n = await page.evaluate(() => window.__player.model.steps.length);
      assert.ok(n > 0, `${h}: no steps`);
      await page.keyboard.press('Home');
      for (let i = 0; i < n; i++) {
        const r = await page.evaluate(() => {
          scrollTo(0, 0);
          const changed = [...document.querySelectorAll('#memory .cell.changed')].filter((c) => c.checkVisibility())
            .map((c) => c.getBoundingClientRect().bottom);
          return { cursor: window.__player.model.cursor, why: document.querySelector('#caption .cap.on').getBoundingClientRect().bottom,
            bar: document.querySelector('.transport').getBoundingClientRect().top, cells: changed.length ? Math.max(...changed) : 0,
            hidden: document.querySelectorAll('#memory .cell.changed').length - changed.length };
        });
        assert.equal(r.cursor, i, `${h}: at step ${r.cursor + 1}, not ${i + 1}`);
        assert.ok(r.why <= r.bar, `${h} step ${i + 1}: the explanation ends at ${r.why}, the bar starts at ${r.bar}`);
        assert.equal(r.hidden, 0, `${h} step ${i + 1}: ${r.hidden} changed cells folded away`);
        assert.ok(r.cells <= 1.25 * viewport.height, `${h} step ${i + 1}: changed cells end at ${r.cells} of ${viewport.height}`);
        steps++;
        if (r.cells) withCells++;
        await page.keyboard.press('ArrowRight');
      }
    }
    assert.ok(steps >= 90 && withCells >= 25, `${steps} steps, ${withCells} with changed cells`);
    await page.close();
  });
}

// On a phone, a buffer the step does not change is its title line (a fold);
// the reader opens it with the keyboard, and it stays open from step to step
// in that case. On a wide screen nothing folds.
test('on a phone the unchanged buffers fold to a line the keyboard opens, and stay open while the case stays; nothing folds on a wide screen', async () => {
  const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=envelope&case=safe`, { viewport: PHONES[1] });
  await page.keyboard.press('End');
  const state = () => page.evaluate(() => [...document.querySelectorAll('#memory .buffer')].map((b) => {
    const d = b.querySelector('details.fold');
    return [b.dataset.key, d ? d.open : 'whole', !!b.querySelector('.cell.changed')];
  }));
  const end = await state();
  for (const [key, open, changed] of end) assert.equal(open, changed, `${key}: open ${open}, changed ${changed}`);
  assert.ok(end.some(([, open]) => !open), 'nothing folded');
  assert.match(await page.textContent('.buffer[data-key=result2] summary'), /result of call 2.*unchanged/);
  await page.focus('.buffer[data-key=result2] summary');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.querySelector('.buffer[data-key=result2] details').open), true);
  assert.ok(await page.locator('.buffer[data-key=result2] .cell').first().isVisible());
  await page.evaluate(() => document.activeElement.blur());
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.evaluate(() => window.__player.model.cursor), 8);
  assert.equal(await page.evaluate(() => document.querySelector('.buffer[data-key=result2] details').open), true);
  await page.close();
  const wide = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=envelope&case=safe`, { viewport: { width: 1400, height: 900 } });
  await wide.keyboard.press('End');
  assert.equal(await wide.locator('#memory details').count(), 0);
  await wide.close();
});

for (const width of [600, 620, 640]) {
  test(`at ${width}x400 (a laptop at 200% zoom) the tabs wrap inside the page: no sideways scrolling`, async () => {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=envelope&case=legacy`, { viewport: { width, height: 400 } });
    const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    assert.equal(scroll, client, `the page is ${scroll} px wide in a ${client} px window`);
    await page.close();
  });
}
