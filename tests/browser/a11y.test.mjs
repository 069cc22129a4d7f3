// a11y.test.mjs -- the page for readers who do not see colour, use a
// keyboard or a screen reader, or asked for less motion: axe-core finds no
// serious or critical violation on any flow (desktop and phone); every cell
// state has a glyph or pattern and a spoken name; the flow tabs follow the
// ARIA tabs pattern; radios keep their arrow keys; the key help shows; the
// cells do not animate under reduced motion.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { axeViolations, goHash, openPage, useBrowser } from './harness.mjs';

// A step of every case that shows the most (the end, and the overwrite).
const VIEWS = ['#flow=writer&case=fits&step=result', '#flow=writer&case=exceeds&scratch=65536&text=ABCD&step=ensure-miss',
  '#flow=envelope&case=legacy&step=inner-written', '#flow=envelope&case=legacy&step=outer-return',
  '#flow=envelope&case=safe&step=outer-return', '#flow=compare&case=stream&step=measured-big',
  '#flow=fanout&case=shared&step=return-1', '#flow=fanout&case=nopool&step=summary'];

let page;                           // one page for every test here
const env = useBrowser({ open: async (env) => { page = await openPage(env.browser.ctx, env.server.url, { viewport: { width: 1440, height: 900 } }); } });

for (const [name, viewport] of [['desktop', { width: 1440, height: 900 }], ['phone', { width: 390, height: 844 }]]) {
  test(`axe-core finds no serious or critical violation on any flow (${name})`, async () => {
    await page.setViewportSize(viewport);
    const found = [];
    for (const h of VIEWS) {
      await goHash(page, h);
      for (const v of await axeViolations(page)) found.push(`${h}: ${v}`);
    }
    assert.deepEqual(found, []);
  });
}

test('every drawn cell state has a glyph or a pattern, a legend entry and a spoken name', async () => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await goHash(page, '#flow=envelope&case=legacy&step=outer-return');
  const seen = await page.$$eval('.buffer .cell', (cs) => cs.map((c) => ({ state: [...c.classList].find((k) => k !== 'cell' && k !== 'changed'),
    glyph: c.querySelector('.g').textContent, name: c.getAttribute('aria-label'),
    dashed: getComputedStyle(c).borderStyle, image: getComputedStyle(c).backgroundImage })));
  const states = [...new Set(seen.map((c) => c.state))].sort();
  assert.deepEqual(states, ['copied', 'empty', 'overwritten', 'rewritten', 'written']);
  for (const c of seen) {
    assert.ok(c.glyph !== '' || c.dashed === 'dashed' || c.image !== 'none', `${c.state} has a glyph or a pattern`);
    assert.match(c.name, /^(scratch|result) byte \d+: /);
  }
  const legend = await page.$$eval('#legend li', (ls) => ls.map((l) => l.textContent.trim()));
  for (const s of states) assert.ok(legend.some((l) => l.includes({ empty: 'not written', written: 'written', nested: 'nested call',
    overwritten: 'overwritten', rewritten: 'leftovers', copied: 'copied' }[s])), `the legend names ${s}`);
  assert.ok(seen.some((c) => /overwritten, was AA/.test(c.name)));
});

test('the flow tabs follow the ARIA tabs pattern', async () => {
  await goHash(page, '#flow=writer&case=fits');
  const tabs = page.locator('#tabs [role=tab]');
  assert.equal(await tabs.count(), 4);
  assert.equal(await page.getAttribute('#panel', 'role'), 'tabpanel');
  assert.equal(await tabs.nth(0).getAttribute('aria-controls'), 'panel');
  assert.equal(await page.getAttribute('#panel', 'aria-labelledby'), 'tab-writer');
  assert.deepEqual(await tabs.evaluateAll((ts) => ts.map((t) => t.tabIndex)), [0, -1, -1, -1]);
  await tabs.nth(0).focus();
  const move = async (key, flow) => {
    await page.keyboard.press(key);
    await page.evaluate(() => window.__player.busy);
    assert.equal(await page.evaluate(() => document.activeElement.dataset.flow), flow, key);
    assert.equal(await page.evaluate(() => window.__player.flow.id), flow, key);
    assert.equal(await page.getAttribute(`#tab-${flow}`, 'aria-selected'), 'true');
    assert.equal(await page.getAttribute('#panel', 'aria-labelledby'), `tab-${flow}`);
  };
  await move('ArrowRight', 'envelope');
  await move('End', 'fanout');
  await move('ArrowRight', 'writer');                                        // wraps around
  await move('ArrowLeft', 'fanout');
  await move('Home', 'writer');
  assert.equal(await page.evaluate(() => window.__player.model.cursor), 0, 'the tab keys did not step the flow');
});

test('radios keep their arrow keys and the key help is visible', async () => {
  await goHash(page, '#flow=envelope&case=legacy&step=3');
  await page.focus('#case-legacy');
  await page.keyboard.press('ArrowRight');
  await page.evaluate(() => window.__player.busy);
  assert.equal(await page.isChecked('#case-output'), true);
  assert.equal(await page.evaluate(() => window.__player.model.caseIndex), 1);
  assert.equal(await page.evaluate(() => window.__player.model.cursor), 0, 'the arrow changed the case, not the step');
  await page.focus('#input-before');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.evaluate(() => window.__player.model.cursor), 0, 'arrows in a text field move its caret');
  assert.equal(await page.isVisible('.transport .keys'), true);
  assert.match(await page.textContent('.transport .keys'), /step.*Space.*play/);
});

test('under reduced motion the changed cells do not animate', async () => {
  const p = await env.browser.ctx.newPage();
  await p.emulateMedia({ reducedMotion: 'reduce' });
  await p.goto(`${env.server.url}#flow=envelope&case=legacy&step=inner-written`);
  await p.waitForFunction(() => document.body.dataset.ready === 'true');
  assert.equal(await p.evaluate(() => document.body.classList.contains('reduced-motion')), true);
  const names = await p.$$eval('.cell.changed', (cs) => cs.map((c) => getComputedStyle(c).animationName));
  assert.ok(names.length > 0 && names.every((n) => n === 'none'), names.join());
  await goHash(page, '#flow=envelope&case=legacy&step=inner-written');
  assert.equal(await page.$eval('.cell.changed', (c) => getComputedStyle(c).animationName), 'flash');
  await p.close();
});
