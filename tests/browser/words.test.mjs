// words.test.mjs -- the words a newcomer reads: the demo's 8-byte scratch is
// said to be a shrunk one (the real one is 64 KiB); the overwrite tab is
// named for the bug it shows and says scratchpack prevents it; the intro
// glosses to_array and "sequence" and names the posts in words, not only by
// file number.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { openPage, useBrowser } from './harness.mjs';

const env = useBrowser();

test('the 8-byte demo scratch is explained against the real 64 KiB one', async () => {
  const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=writer&case=fits&scratch=8&step=1`);
  const why = await page.textContent('#why');
  assert.match(why, /8-byte scratch/);
  assert.match(why, /shrinks the scratch.*overflow happens on screen.*real one is 64 KiB/);
  await page.close();
  const real = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=writer&case=fits&scratch=65536&step=1`);
  assert.doesNotMatch(await real.textContent('#why'), /shrinks/);
  await real.close();
});

test('the overwrite tab is named for its bug and says scratchpack prevents it', async () => {
  const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=envelope`);
  const tab = await page.$eval('#tab-envelope', (b) => b.textContent);
  assert.match(tab, /overwrite/i);
  assert.match(tab, /scratchpack prevents it/);
  await page.close();
});

test('the intro glosses its jargon and names the posts in words', async () => {
  const page = await openPage(env.browser.ctx, `${env.server.url}?recorded`);
  const intro = (await page.textContent('#intro')).replace(/\s+/g, ' ');
  assert.match(intro, /to_array \(serialize to a new byte array\)/);
  assert.match(intro, /a sequence \(a chain of segments/);
  assert.doesNotMatch(intro, /000, MessagePack-CSharp/);
  assert.match(intro, /the first, on how MessagePack-CSharp's Serialize writes/);
  assert.doesNotMatch(intro, /x-flow/);
  await page.close();
});

test('the bytes are read beside their hex (93 = an array of 3, 41 = \'A\')', async () => {
  const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=envelope&case=safe`);
  await page.keyboard.press('End');
  const meanings = await page.$$eval('#memory .meaning', (ps) => ps.map((p) => p.textContent));
  assert.ok(meanings.some((m) => /^Read as MessagePack: 93 = an array of 3 · AA = a string of 10 bytes · 41 = 'A'/.test(m)), meanings.join(' | '));
  await page.close();
});

test('the fan-out shows the natively recorded figures beside the live ones, labelled', async () => {
  const native = JSON.parse(readFileSync(new URL('../../web/recorded/pools-native.json', import.meta.url), 'utf8'));
  const page = await openPage(env.browser.ctx, `${env.server.url}?recorded#flow=fanout&case=shared`);
  await page.keyboard.press('End');
  const text = (await page.textContent('.board .native')).replace(/\s+/g, ' ');
  assert.match(text, /^Recorded natively, not in this browser: shared pool /);
  assert.ok(text.includes(native.what), text);
  for (const v of Object.values(native.ns)) assert.ok(text.includes(v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US')), `${v} in ${text}`);
  await page.close();
});
