// reading.test.mjs -- keyboard and reading: the three entries' table box
// takes the focus and scrolls with the arrow keys without the step keys
// firing (the step and the focus stay); the table has a caption that names
// its box, and on a phone keeps the width its headers need, scrolling
// inside its box rather than the page;
// the code notes meet AAA contrast (7:1) on every line background; the
// "Inputs" summary is a target of at least 24 px.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPage, useBrowser } from './harness.mjs';

const env = useBrowser();

for (const width of [390, 320]) {
  // The table keeps the width its headers need (its layout rules, not the
  // wrapping of its text, which depends on the fonts at hand) and scrolls
  // inside its box; it was squeezed to the screen, breaking words.
  test(`at ${width} px the three entries' table keeps its width and scrolls inside its box, named by its caption`, async () => {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=compare&case=array&step=measured-big`, { viewport: { width, height: 844 } });
    const t = await page.evaluate(() => {
      const box = document.querySelector('.table-box'), cap = box.querySelector('table > caption');
      const css = getComputedStyle(box.querySelector('table'));
      return { layout: css.tableLayout, minWidth: parseFloat(css.minWidth) / parseFloat(getComputedStyle(document.documentElement).fontSize),
        page: [document.documentElement.scrollWidth, document.documentElement.clientWidth], box: [box.scrollWidth, box.clientWidth],
        labelledby: box.getAttribute('aria-labelledby'), caption: cap && cap.id, captionText: cap && cap.textContent };
    });
    assert.equal(t.layout, 'auto');
    assert.ok(t.minWidth >= 36, `min-width ${t.minWidth}rem`);
    assert.ok(t.page[0] <= t.page[1], `the page is ${t.page[0]} px wide in ${t.page[1]}`);
    assert.ok(t.box[0] > t.box[1], 'the table scrolls inside its box');
    assert.ok(t.caption && t.labelledby === t.caption, `the box is named by the caption (${t.labelledby}, ${t.caption})`);
    assert.match(t.captionText, /^Allocation per call/);
    assert.equal(await page.getByRole('region', { name: /^Allocation per call/ }).count(), 1);
    await page.close();
  });
}

test('the table box keeps the focus and scrolls with the arrow keys; the step does not move', async () => {
  const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=compare&case=array`, { viewport: { width: 390, height: 844 } });
  await page.keyboard.press('End');
  // Narrower than its table, the box scrolls: with the focus in it, the keys scroll it.
  await page.evaluate(() => { document.querySelector('.table-box table').style.width = '900px'; });
  const before = await page.evaluate(() => window.__player.model.cursor);
  await page.focus('.table-box');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  // Chromium animates a keyboard scroll: wait for it to move rather than read it at once.
  await page.waitForFunction(() => document.querySelector('.table-box').scrollLeft > 0, null, { timeout: 10000 }).catch(() => {});
  const after = await page.evaluate(() => ({ cursor: window.__player.model.cursor, scroll: document.querySelector('.table-box').scrollLeft,
    focused: document.activeElement?.classList.contains('table-box') }));
  assert.equal(after.cursor, before, 'the step moved');
  assert.ok(after.focused, 'the box lost the focus');
  assert.ok(after.scroll > 0, 'the box did not scroll');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.evaluate(() => window.__player.model.cursor), before);
  await page.close();
});

test('code notes meet 7:1 on every line background; the Inputs summary is at least 24 px tall', async () => {
  const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=envelope&case=legacy&step=inner-written`, { viewport: { width: 1400, height: 1000 } });
  const worst = await page.evaluate(() => {
    const rgb = (s) => s.match(/[\d.]+/g).slice(0, 3).map(Number);
    const lum = (c) => { const [r, g, b] = c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    let min = Infinity;
    for (const note of document.querySelectorAll('#code .c')) {
      const li = note.closest('li');
      const bg = getComputedStyle(li).backgroundColor;
      // A line without a colour of its own (or a striped one) sits on the panel, or on its stripes.
      const backs = bg === 'rgba(0, 0, 0, 0)' ? [[255, 255, 255], [240, 239, 233]] : [rgb(bg)];
      for (const b of backs) min = Math.min(min, ratio(rgb(getComputedStyle(note).color), b));
    }
    return min;
  });
  assert.ok(worst >= 7, `a code note at ${worst.toFixed(2)}:1`);
  const h = await page.$eval('#inputs-box > summary', (s) => s.getBoundingClientRect().height);
  assert.ok(h >= 24, `the Inputs summary is ${h} px tall`);
  await page.close();
});
