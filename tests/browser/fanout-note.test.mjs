// fanout-note.test.mjs -- the fan-out's note under its output says where its
// figures come from, and claims no more: a live run (the pthread build on
// this machine) is not called recorded; the recorded run says it is
// recorded; the made-up figures of ?recorded=longest say they are not a
// measurement, and neither "Recorded" nor how the counters were measured.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPage, useBrowser } from './harness.mjs';

const env = useBrowser();
const HASH = '#flow=fanout&case=shared&step=summary';
const HOW = /Counters are the pools' own \(sp_pool_stats\)/;

async function texts(query) {
  const page = await openPage(env.browser.ctx, `${env.server.url}${query}${HASH}`);
  try {
    return { note: await page.textContent('#note'), box: await page.textContent('.recorded').catch(() => null),
      recorded: await page.evaluate(() => window.__player.model.recorded), errors: page.errors };
  } finally {
    await page.close();
  }
}

test('?recorded=longest: the made-up figures are not called recorded or measured', async () => {
  const t = await texts('?recorded=longest');
  assert.match(t.box, /^Not a measurement: figures made up/);
  assert.match(t.note, /^Not a measurement: figures made up/);
  assert.doesNotMatch(t.note, /Recorded/);                 // (its URL, ?recorded=longest, may be named)
  assert.doesNotMatch(t.note, HOW);
  assert.deepEqual(t.errors, []);
});

test('?recorded: the recorded run says it is recorded, and how its counters were taken', async () => {
  const t = await texts('?recorded');
  assert.ok(t.recorded && !t.recorded.label, 'the recorded file carries no label of its own');
  assert.match(t.note, /^Recorded: the pthread build under Node/);
  assert.match(t.note, HOW);
});

test('a live run (the pthread build in this browser) is not called recorded', async () => {
  const t = await texts('');
  assert.equal(t.recorded, null);
  assert.match(t.note, HOW);
  assert.doesNotMatch(t.note, /Recorded|Not a measurement/);
  assert.deepEqual(t.errors, []);
});
