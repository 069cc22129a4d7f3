// reflow.test.mjs -- WCAG 1.4.10 Reflow: with text at 200% (the root font
// size set to 200%: every rem of the page doubles) on a 360 px phone, and at
// 320 px, no step of any case of any tab scrolls the page sideways, and
// nothing on screen (the fixed playback bar included) reaches past its
// right edge; a data table may scroll inside its own focusable region.
// Checked with the details closed (as a phone opens the page) and open (the
// intro, the inputs, the code). Opened with ?recorded (the fan-out's
// recorded run) and ?recorded=longest (its longest sentences): nothing
// depends on the machine's speed, only on the page's fonts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goHash, openPage, useBrowser } from './harness.mjs';

const EVERY = ['#flow=writer&case=fits', '#flow=writer&case=exceeds', '#flow=writer&case=exceeds&scratch=65536',
  '#flow=envelope&case=legacy', '#flow=envelope&case=output', '#flow=envelope&case=safe',
  '#flow=compare&case=array', '#flow=compare&case=output', '#flow=compare&case=stream',
  '#flow=fanout&case=shared', '#flow=fanout&case=lockfree', '#flow=fanout&case=nopool'];
const FANOUT = EVERY.filter((h) => h.includes('fanout'));

const env = useBrowser();

// The page's width against the window's; the elements on screen whose
// right edge is past the window's (not those inside a box that scrolls or
// clips); and the boxes that scroll sideways, unless a table's region.
function sideways() {
  const out = [];
  const width = document.documentElement.clientWidth;
  const clipped = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== 'visible') return true;
    }
    return false;
  };
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('.sr-only') || !el.checkVisibility() || clipped(el)) continue;
    const r = el.getBoundingClientRect();
    const name = `${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}"`;
    if (r.width > 0 && r.right > width + 0.5) out.push(`${name} ends at ${Math.round(r.right)}`);
    // A box that scrolls sideways is a data table's own labelled region, nothing else.
    const table = el.matches('[role=region][tabindex="0"]:is([aria-label], [aria-labelledby])') && el.querySelector('table');
    if (['auto', 'scroll'].includes(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth + 1 && !table) {
      out.push(`${name} scrolls sideways (${el.scrollWidth} px in ${el.clientWidth})`);
    }
  }
  return { scroll: document.documentElement.scrollWidth, width, out: [...new Set(out)].slice(0, 6) };
}

async function everyStep(page, hashes, what) {
  let steps = 0;
  for (const h of hashes) {
    await goHash(page, h);
    const n = await page.evaluate(() => window.__player.model.steps.length);
    assert.ok(n > 0, `${h}: no steps`);
    await page.keyboard.press('Home');
    for (let i = 0; i < n; i++) {
      const r = await page.evaluate(sideways);
      assert.ok(r.scroll <= r.width, `${what} ${h} step ${i + 1}: the page is ${r.scroll} px wide in ${r.width} (${r.out.join('; ')})`);
      assert.deepEqual(r.out, [], `${what} ${h} step ${i + 1}`);
      steps++;
      await page.keyboard.press('ArrowRight');
    }
  }
  return steps;
}

for (const width of [360, 320]) {
  test(`at ${width} px with text at 200%: no tab, case or step scrolls the page sideways, details closed or open`, async () => {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=writer`, { viewport: { width, height: 740 } });
    await page.evaluate(() => { document.documentElement.style.fontSize = '200%'; });
    assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).fontSize), '32px');
    let steps = await everyStep(page, EVERY, 'closed:');
    await page.evaluate(() => { for (const id of ['intro', 'inputs-box', 'code-box']) document.getElementById(id).open = true; });
    steps += await everyStep(page, EVERY, 'open:');
    assert.ok(steps >= 150, `${steps} steps`);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test(`at ${width} px with text at 200%: the fan-out's longest sentences do not scroll the page sideways`, async () => {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded=longest#flow=fanout&case=shared`, { viewport: { width, height: 740 } });
    await page.evaluate(() => { document.documentElement.style.fontSize = '200%'; });
    await page.evaluate(() => { for (const id of ['intro', 'inputs-box', 'code-box']) document.getElementById(id).open = true; });
    assert.ok(await everyStep(page, FANOUT, 'longest:') > 0);
    await page.close();
  });
}
