// busy.test.mjs -- a run that takes longer than a moment shows a busy state
// (body[data-busy], #busy, #stage[aria-busy]), then the page is ready again.
// The run is made long on purpose and without a race: an init script holds
// the page's next request to its worker for 600 ms, past the 150 ms after
// which the page shows that it is busy (both timers are the page's own, so
// the order does not depend on the machine's speed). How long the page's
// tasks take is a measurement: long-tasks.bench.mjs (npm run bench:page).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goHash, openPage, ready, useBrowser } from './harness.mjs';

let page;
useBrowser({ open: async (env) => { page = await openPage(env.browser.ctx, `${env.server.url}#flow=writer&case=fits`,
  { viewport: { width: 1440, height: 900 }, init: [recordBusy, holdNextRun] }); } });

// An init script: records every change of body[data-busy] in window.__busy.
function recordBusy() {
  window.__busy = [];
  addEventListener('DOMContentLoaded', () => new MutationObserver(() => window.__busy.push(document.body.dataset.busy))
    .observe(document.body, { attributes: true, attributeFilter: ['data-busy'] }));
}

// An init script: while window.__holdRunMs is set, the page's next 'run'
// request to its worker is posted that many ms late.
function holdNextRun() {
  const post = Worker.prototype.postMessage;
  window.__holdRunMs = 0;
  Worker.prototype.postMessage = function (message, ...rest) {
    const ms = window.__holdRunMs;
    if (ms > 0 && message && message.type === 'run') {
      window.__holdRunMs = 0;
      setTimeout(() => post.call(this, message, ...rest), ms);
      return;
    }
    post.call(this, message, ...rest);
  };
}

test('a run that takes longer shows a busy state, then the page is ready', async () => {
  await goHash(page, '#flow=writer&case=fits');
  await ready(page);
  await page.evaluate(() => { window.__busy.length = 0; window.__holdRunMs = 600; });
  await page.click('label[for=case-exceeds]');
  await page.evaluate(async () => {
    await new Promise((r) => setTimeout(r, 0));      // the click's handler has started the run
    await window.__player.busy;                       // and the run has ended
  });
  await ready(page);
  const seen = await page.evaluate(() => window.__busy);
  assert.ok(seen.includes('true'), `busy shown (${seen.join()})`);
  assert.equal(seen[seen.length - 1], 'false');
  assert.equal(await page.textContent('#busy'), '');
  assert.equal(await page.getAttribute('#stage', 'aria-busy'), 'false');
  assert.deepEqual(page.errors, []);
});
