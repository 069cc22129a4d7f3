// Leases: a live view is never written over, released memory is reused,
// a nested encode never overwrites its caller, and a view crosses to a
// worker_threads Worker without a copy.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Worker } from 'node:worker_threads';

import { createScratchpack, decode } from '../../js/index.js';

let sp;
before(async () => { sp = await createScratchpack(); });
after(() => sp.close());

test('a live view keeps its bytes while later encodes run', () => {
  const lease = sp.encodeView({ id: 1, name: 'first' });
  const before = Uint8Array.from(lease.bytes);
  for (let i = 0; i < 1000; i++) sp.encode({ id: i, name: 'x'.repeat(i % 100) });
  const other = sp.encodeView({ id: 2, name: 'second' });
  assert.deepEqual(Uint8Array.from(lease.bytes), before);
  assert.notEqual(other.bytes.byteOffset, lease.bytes.byteOffset);
  assert.deepEqual(decode(lease.bytes), { id: 1, name: 'first' });
  lease.release();
  other.release();
});

test('the view is over shared linear memory and released memory is reused', () => {
  const a = sp.encodeView([1, 2, 3]);
  assert.ok(a.bytes.buffer instanceof SharedArrayBuffer);
  const where = a.bytes.byteOffset;
  a.release();
  assert.equal(a.live, false);
  const b = sp.encodeView([4, 5, 6]);
  assert.equal(b.bytes.byteOffset, where);
  b.release();
  b.release();                           // twice is harmless
  assert.equal(sp.stats().leases, 0);
});

test('a view of a message larger than the scratch is one contiguous block', () => {
  const big = Array.from({ length: 20000 }, (_, i) => `item ${i}`);
  const lease = sp.encodeView(big);
  assert.deepEqual(decode(lease.bytes), big);
  const copy = sp.encode(big);
  assert.deepEqual(Uint8Array.from(lease.bytes), copy);
  lease.release();
});

test('an encode nested in a getter does not overwrite the outer message', () => {
  let inner;
  const outer = {
    a: 7,
    get b() { inner = sp.encode(['inner', 1.5]); return 'outer'; },
    c: [1, 2, 3],
  };
  const bytes = sp.encode(outer);
  assert.deepEqual(decode(bytes), { a: 7, b: 'outer', c: [1, 2, 3] });
  assert.deepEqual(decode(inner), ['inner', 1.5]);
  const into = new Uint8Array(64);
  const n = sp.encodeInto({ get x() { return decode(sp.encode({ y: 2 })); } }, into);
  assert.deepEqual(decode(into.subarray(0, n)), { x: { y: 2 } });
});

test('a view posted to a worker is read there without a copy', async () => {
  const lease = sp.encodeView({ hello: 'worker', n: [1, 2, 3] });
  const src = `
    const { parentPort, workerData } = require('node:worker_threads');
    const v = workerData.view;
    parentPort.postMessage({ shared: v.buffer instanceof SharedArrayBuffer, len: v.length, first: v[0] });
    v[v.length - 1] = 4;                   // [1, 2, 3] -> [1, 2, 4], seen by the owner
    parentPort.postMessage('done');
  `;
  const w = new Worker(src, { eval: true, workerData: { view: lease.bytes } });
  const msgs = [];
  await new Promise((resolve, reject) => {
    w.on('message', (m) => { msgs.push(m); if (m === 'done') resolve(); });
    w.on('error', reject);
  });
  await w.terminate();
  assert.deepEqual(msgs[0], { shared: true, len: lease.bytes.length, first: lease.bytes[0] });
  assert.deepEqual(decode(lease.bytes), { hello: 'worker', n: [1, 2, 4] });
  lease.release();
});
