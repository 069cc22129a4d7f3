// live-region.test.mjs -- what a screen reader hears from the playback: the
// live region (#verdict, #why, #state, #stopped) says the step the reader
// moves to (a step, a case) and where playback stopped (paused or at the
// end); while playback advances on its own it is turned off (aria-live
// off) but still holds the step on show, for a reader who reads it; and the
// Play button is a plain button whose name says what it does (Play, Pause),
// with no aria-pressed beside a changing name (ARIA APG). Playback is
// advanced through the clock's flush hook and checked through the DOM: no
// assertion depends on how long anything takes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goHash, openPage, useBrowser } from './harness.mjs';

const HASH = '#flow=envelope&case=legacy&step=1';
let page;
const env = useBrowser({ open: async (env) => { page = await openPage(env.browser.ctx, `${env.server.url}?recorded${HASH}`); } });

// The live region's words, and the step on show with its own words.
const live = () => page.evaluate(() => {
  const p = window.__player, s = p.model.steps[p.model.cursor];
  const region = document.getElementById('why').closest('[aria-live]');
  return { region: region.getAttribute('aria-live'), why: document.getElementById('why').textContent,
    state: document.getElementById('state').textContent, stopped: (document.getElementById('stopped')?.textContent ?? ''),
    cursor: p.model.cursor, steps: p.model.steps.length, stepWhy: s.why, stepState: s.state || '', playing: p.playing };
});

test('a step the reader takes is announced; auto-advanced steps while playing are not, but are there to read; where playback stops is', async () => {
  await goHash(page, HASH);
  await page.evaluate(() => document.activeElement?.blur());
  let r = await live();
  assert.equal(r.region, 'polite');
  assert.equal(r.why, r.stepWhy, 'the opened step is in the live region');

  // A step forward (the button, then the key): the live region follows.
  await page.click('#forward');
  r = await live();
  assert.equal(r.cursor, 1);
  assert.equal(r.why, r.stepWhy);
  assert.equal(r.stopped, '');
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press('ArrowRight');
  r = await live();
  assert.equal(r.cursor, 2);
  assert.equal(r.why, r.stepWhy);
  const announced = r.why;

  // Playing: the clock moves the steps on; the live region is off, and holds the step on show.
  await page.click('#play');
  const during = await page.evaluate(() => {
    const p = window.__player;
    p.flush();
    p.flush();
    return { playing: p.playing, cursor: p.model.cursor, why: document.getElementById('why').textContent,
      region: document.getElementById('why').closest('[aria-live]').getAttribute('aria-live'),
      stopped: (document.getElementById('stopped')?.textContent ?? ''), shown: document.querySelector('#caption .cap.on .why').textContent,
      stepWhy: p.model.steps[p.model.cursor].why };
  });
  assert.equal(during.playing, true);
  assert.ok(during.cursor >= 4, `at step ${during.cursor + 1}`);
  assert.equal(during.shown, during.stepWhy, 'the screen shows the step playing');
  assert.equal(during.region, 'off', 'auto-advanced steps are not announced');
  assert.notEqual(during.why, announced);
  assert.equal(during.why, during.stepWhy, 'the live region holds the step on show, for a reader who reads it');
  assert.equal(during.stopped, '');

  // Paused: the live region is on again, and says where it stopped, and that step's words.
  await page.click('#play');
  r = await live();
  assert.equal(r.playing, false);
  assert.equal(r.region, 'polite');
  assert.equal(r.why, r.stepWhy);
  assert.equal(r.state, r.stepState);
  assert.equal(r.stopped, `Paused at step ${r.cursor + 1} of ${r.steps}.`);

  // A step while playing is the reader's: announced, and playback goes on quietly.
  // (Read as the key's own handler returns: the clock cannot move in between.)
  await page.click('#play');
  await page.evaluate(() => {
    document.activeElement?.blur();
    window.addEventListener('keydown', () => {
      const p = window.__player;
      window.__afterKey = { playing: p.playing, why: document.getElementById('why').textContent,
        region: document.getElementById('why').closest('[aria-live]').getAttribute('aria-live'),
        stopped: (document.getElementById('stopped')?.textContent ?? ''), stepWhy: p.model.steps[p.model.cursor].why };
    }, { once: true });
  });
  await page.keyboard.press('ArrowLeft');
  const key = await page.evaluate(() => window.__afterKey);
  assert.equal(key.playing, true);
  assert.equal(key.region, 'polite', 'a step the reader takes while playing is announced');
  assert.equal(key.why, key.stepWhy);
  assert.equal(key.stopped, '');

  // Played to the end: the last step, and that playback ended.
  const end = await page.evaluate(() => {
    const p = window.__player;
    for (let i = 0; i < 500 && p.playing; i++) p.flush();
    return { playing: p.playing, cursor: p.model.cursor, steps: p.model.steps.length };
  });
  assert.equal(end.playing, false);
  assert.equal(end.cursor, end.steps - 1);
  r = await live();
  assert.equal(r.why, r.stepWhy);
  assert.equal(r.stopped, `Played to the end: step ${r.steps} of ${r.steps}.`);

  // Picking a case: its first step is announced.
  await page.click('#case-safe');
  await page.evaluate(() => window.__player.busy);
  r = await live();
  assert.equal(r.cursor, 0);
  assert.equal(r.why, r.stepWhy);
  assert.equal(r.stopped, '');
  assert.deepEqual(page.errors, []);
});

test('the Play button is named for what it does (Play, Pause) and has no pressed state', async () => {
  await goHash(page, HASH);
  await page.evaluate(() => window.__player.playing && window.__player.togglePlay());
  const play = page.locator('#play');
  assert.equal(await play.getAttribute('aria-pressed'), null);
  assert.equal(await page.getByRole('button', { name: 'Play', exact: true }).count(), 1);
  await play.click();
  assert.equal(await page.evaluate(() => window.__player.playing), true);
  assert.equal(await play.getAttribute('aria-pressed'), null);
  assert.equal(await page.getByRole('button', { name: 'Pause', exact: true }).count(), 1);
  assert.equal(await page.getByRole('button', { pressed: true }).count(), 0);
  await play.click();
  assert.equal(await page.evaluate(() => window.__player.playing), false);
  assert.equal(await play.getAttribute('aria-pressed'), null);
  assert.equal(await page.getByRole('button', { name: 'Play', exact: true }).count(), 1);
});
