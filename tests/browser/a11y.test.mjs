// a11y.test.mjs -- the page for readers who do not see colour, use a
// keyboard or a screen reader, or asked for less motion: axe-core finds no
// serious or critical violation on any flow (desktop and phone); every cell
// state has a glyph or pattern and a spoken name; the flow tabs follow the
// ARIA tabs pattern; radios keep their arrow keys; the key help shows; the
// cells do not animate under reduced motion; the playback controls name
// their keys (aria-keyshortcuts); the intro's box is a tab stop only while
// it scrolls; the notice is in the accessibility tree from the start and an
// error is an alert; the disabled thread count says why in words on screen.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { axeViolations, goHash, openPage, ready, useBrowser } from './harness.mjs';

// A step of every case that shows the most (the end, and the overwrite).
const VIEWS = ['#flow=writer&case=fits&step=result', '#flow=writer&case=exceeds&scratch=65536&text=ABCD&step=ensure-miss',
  '#flow=envelope&case=legacy&step=inner-written', '#flow=envelope&case=legacy&step=outer-return',
  '#flow=envelope&case=safe&step=outer-return', '#flow=compare&case=stream&step=measured-big',
  '#flow=fanout&case=shared&step=return-1', '#flow=fanout&case=nopool&step=summary'];

let page;                           // one page for every test here
const env = useBrowser({ plain: true, open: async (env) => { page = await openPage(env.browser.ctx, env.server.url, { viewport: { width: 1440, height: 900 } }); } });

for (const [name, viewport] of [['desktop', { width: 1440, height: 900 }], ['laptop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }], ['400% zoom', { width: 320, height: 256 }]]) {
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

test('the playback controls name the keys that do what they do', async () => {
  const keys = await page.evaluate(() => Object.fromEntries(['back', 'play', 'forward', 'scrub']
    .map((id) => [id, document.getElementById(id).getAttribute('aria-keyshortcuts')])));
  assert.deepEqual(keys, { back: 'ArrowLeft', play: 'Space', forward: 'ArrowRight', scrub: 'Home End' });
});

test('the intro\'s box is a tab stop only while it scrolls', async () => {
  const stop = () => page.evaluate(() => {
    const b = document.getElementById('intro-body');
    return { tabIndex: b.getAttribute('tabindex'), scrolls: b.scrollHeight > b.clientHeight + 1 };
  });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.evaluate(() => { document.getElementById('intro').open = true; });
  await page.waitForFunction(() => document.getElementById('intro-body').scrollHeight > 0);
  let s = await stop();
  assert.equal(s.scrolls, false);
  assert.equal(s.tabIndex, null, 'a box that does not scroll is no tab stop');
  await page.focus('#intro > summary');
  await page.keyboard.press('Tab');
  assert.notEqual(await page.evaluate(() => document.activeElement.id), 'intro-body');
  await page.setViewportSize({ width: 390, height: 844 });
  // The box's size changes with the layout: wait for the page's observer to see it scroll.
  await page.waitForFunction(() => document.getElementById('intro-body').getAttribute('tabindex') === '0', null, { timeout: 10000 });
  s = await stop();
  assert.equal(s.scrolls, true);
  await page.setViewportSize({ width: 1440, height: 900 });
});

test('the notice is in the accessibility tree from the start, a status; an error is an alert', async () => {
  const notice = (p) => p.evaluate(() => {
    const n = document.getElementById('notice');
    return { role: n.getAttribute('role'), hidden: n.hidden || getComputedStyle(n).display === 'none', text: n.textContent };
  });
  assert.deepEqual(await notice(page), { role: 'status', hidden: false, text: '' });
  const plain = await openPage(env.browser.ctx, `${env.plain.url}#flow=writer`);
  const info = await notice(plain);
  assert.equal(info.role, 'status');
  assert.match(info.text, /not cross-origin isolated/);
  await plain.close();
  // The page's module cannot load: the page says so, as an alert.
  await env.browser.ctx.route('**/dist-web/**', (r) => r.fulfill({ status: 404, body: '' }));
  try {
    const broken = await env.browser.ctx.newPage();
    await broken.goto(env.server.url);
    await broken.waitForFunction(() => document.getElementById('notice').textContent !== '', null, { timeout: 30000 });
    const err = await notice(broken);
    assert.equal(err.role, 'alert');
    assert.match(err.text, /did not load/);
    await broken.close();
  } finally {
    await env.browser.ctx.unroute('**/dist-web/**');
  }
});

test('without threads the disabled thread count says why in words on screen, tied to it', async () => {
  const plain = await openPage(env.browser.ctx, `${env.plain.url}#flow=fanout&case=shared&consumers=2`);
  await plain.evaluate(() => { document.getElementById('inputs-box').open = true; });
  const d = await plain.evaluate(() => {
    const f = document.getElementById('input-consumers');
    const why = document.getElementById(f.getAttribute('aria-describedby') || '');
    return { disabled: f.disabled, value: f.value, why: why && why.textContent, visible: !!why && why.checkVisibility() };
  });
  assert.equal(d.disabled, true);
  assert.equal(d.value, '3', 'the select shows the count the recorded run used');
  assert.ok(d.visible, 'the reason is on screen');
  assert.match(d.why, /recorded run used 3.*pthread build/);
  await plain.close();
});
