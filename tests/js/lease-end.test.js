// How leases end: release() works detached, Symbol.dispose releases, a
// forgotten lease is reclaimed once the garbage collector finds neither it
// nor its view reachable, a view still held keeps its lease alive, and a
// NOMEM while leases are live says how many.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { createScratchpack, decode } from '../../js/index.js';

// The test runner gives no way to pass --expose-gc: enable it from here.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

// Collects until the instance's live leases drop to at most 'left' (the
// registry's callbacks run as tasks after a collection).
async function collectUntil(sp, left, rounds = 50) {
  for (let i = 0; i < rounds && sp.stats().leases > left; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return sp.stats().leases;
}

const MiB = 1 << 20;

test('release works detached: const { bytes, release } = sp.encodeView(v)', async () => {
  const sp = await createScratchpack({ wasm: 'threads' });
  const { bytes, release } = sp.encodeView({ id: 1, name: 'detached' });
  assert.deepEqual(decode(bytes), { id: 1, name: 'detached' });
  const where = bytes.byteOffset;
  release();
  release();                                                  // twice is harmless
  assert.equal(sp.stats().leases, 0);
  assert.equal(sp.encodeView({ id: 2, name: 'detached' }).bytes.byteOffset, where);   // the block is free again
  sp.close();
});

test('Symbol.dispose ends a lease (what `using` calls)', async () => {
  const sp = await createScratchpack({ wasm: 'single' });
  const lease = sp.encodeView({ using: true });
  assert.equal(typeof Symbol.dispose, 'symbol');
  assert.equal(typeof lease[Symbol.dispose], 'function');
  lease[Symbol.dispose]();
  assert.equal(lease.live, false);
  assert.equal(sp.stats().leases, 0);
  sp.close();
});

// Each lease holds a block of exactly its message's size (it held a 32 KiB
// segment, or the 64 KiB scratch, whatever the message's size).
test('threads: 10,000 forgotten leases are reclaimed after a collection; later encodes succeed', async () => {
  const sp = await createScratchpack({ wasm: 'threads' });
  const base = sp.stats().heap.used;
  let bytes = 0;
  (function forget() {
    for (let i = 0; i < 10000; i++) bytes += sp.encodeView({ i, name: `lease ${i}`, pad: 'p'.repeat(i % 50) }).bytes.length;
  })();
  const held = sp.stats();
  assert.equal(held.leases, 10000);
  assert.equal(held.leaseBytes, bytes);
  assert.ok(held.heap.used - base <= bytes + 64 * 10000, `${held.heap.used - base} for ${bytes} bytes of messages`);
  sp.encode(1);                                                         // the last one is watched from here
  assert.ok(await collectUntil(sp, 0) === 0, `${sp.stats().leases} leases left`);
  const after = sp.stats();
  assert.equal(after.leaseBytes, 0);
  assert.ok(after.heap.used - base < 64 * 1024, `heap.used ${after.heap.used} vs ${base}`);
  for (let i = 0; i < 100; i++) assert.deepEqual(decode(sp.encode({ again: i })), { again: i });
  sp.close();
});

test('single: a lease holds no linear memory: 10,000 forgotten ones leave the heap as it was', async () => {
  const sp = await createScratchpack({ wasm: 'single' });
  sp.encodeView({ warm: 'up' });
  const base = sp.stats().heap.used;
  (function forget() {
    for (let i = 0; i < 10000; i++) sp.encodeView({ i, name: `lease ${i}`, pad: 'p'.repeat(i % 50) });
  })();
  const held = sp.stats();
  assert.equal(held.leases, 0);
  assert.equal(held.heap.used, base);
  for (let i = 0; i < 100; i++) assert.deepEqual(decode(sp.encode({ again: i })), { again: i });
  sp.close();
});

test('under a small maxMemory, forgotten leases are reclaimed and encoding goes on', async () => {
  const sp = await createScratchpack({ wasm: 'threads', maxMemory: 64 * MiB });
  let failures = 0;
  const pad = 'x'.repeat(20000);
  for (let round = 0; round < 10; round++) {
    for (let i = 0; i < 1000; i++) {                          // 1,000 x 20 kB fits; 10,000 would not
      try { sp.encodeView({ round, i, pad }); } catch { failures++; }
    }
    sp.encode(0);
    await collectUntil(sp, 0);
  }
  assert.equal(failures, 0);
  assert.ok(sp.stats().heap.size <= 64 * MiB);
  sp.close();
});

test('a view still held keeps its lease: the collector reclaims it only once the view is gone too', async () => {
  const sp = await createScratchpack({ wasm: 'threads' });
  let { bytes } = sp.encodeView({ kept: 'while the view lives', n: [1, 2, 3] });   // the lease itself is dropped
  const copy = bytes.slice();
  sp.encode(1);
  for (let i = 0; i < 5; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (let k = 0; k < 200; k++) sp.encodeView({ k, other: 'x'.repeat(k) }).release();
  }
  assert.equal(sp.stats().leases, 1);
  assert.ok(Buffer.compare(bytes, copy) === 0);             // nothing wrote over it
  bytes = null;
  assert.equal(await collectUntil(sp, 0), 0);
  sp.close();
});

test('NOMEM while leases are live says how many, and releasing them frees the memory', async () => {
  const sp = await createScratchpack({ wasm: 'threads', maxMemory: 32 * MiB });
  const leases = [];
  let error;
  const block = { b: new Uint8Array(256 * 1024) };
  for (let i = 0; i < 1000 && !error; i++) {
    try { leases.push(sp.encodeView(block)); } catch (e) { error = e; }
  }
  assert.equal(error?.code, 'NOMEM');
  assert.match(error.message, new RegExp(`; ${leases.length} leases are live, holding ${leases.length * (256 * 1024 + 8)} bytes`));
  assert.match(error.message, /release\(\) them/);
  for (const l of leases) l.release();
  assert.equal(sp.stats().leases, 0);
  assert.equal(sp.encodeView(block).bytes.length, 256 * 1024 + 8);   // map, key, bin header
  sp.close();
});

test('leases released or reclaimed after close() do nothing', async () => {
  const sp = await createScratchpack({ wasm: 'threads' });
  const kept = sp.encodeView([1]);
  sp.encodeView([2]);                                         // forgotten
  sp.close();
  kept.release();
  gc();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.throws(() => sp.encode(1), { code: 'CLOSED' });
});

test('the last forgotten lease is watched from the next call of any kind (encodeInto, decode), and reclaimed', async () => {
  const sp = await createScratchpack({ wasm: 'threads' });
  try {
    sp.encodeView({ big: 'z'.repeat(1 << 20) });          // dropped at once: the instance's newest lease
    const target = new Uint8Array(64);
    const n = sp.encodeInto({ i: 1 }, target);
    sp.decode(target.subarray(0, n));
    assert.equal(await collectUntil(sp, 0, 20), 0, 'reclaimed with only encodeInto and decode after it');
  } finally {
    sp.close();
  }
});
