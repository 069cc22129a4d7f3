// encodeAsync settles in the order the calls were made, whatever ran where
// (issue 20, item 5): worker tasks, small arrays and other values encoded
// here, errors and aborted calls; small arrays never become tasks; a flood
// settles a batch per event-loop turn, so other callbacks run meanwhile.
// Nothing here measures time: the speed is bench/js-async.mjs's.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createScratchpack } from '../../js/index.js';
import { INLINE_MAX_BYTES } from '../../js/tasks.js';

const big = (seed) => Float64Array.from({ length: INLINE_MAX_BYTES / 8 + 1000 }, (_, i) => i * seed);
const small = (seed) => Int32Array.from({ length: 100 }, (_, i) => i * seed);

// Records the index of each call as it settles.
function track(calls) {
  const order = [];
  calls.forEach((p, i) => p.then(() => order.push(i), () => order.push(i)));
  return order;
}

describe('calls settle in submission order', () => {
  for (const options of [{ threads: 2 }, { threads: 1 }, { threads: 0 }, { wasm: 'single' }]) {
    test(JSON.stringify(options), async () => {
      const sp = await createScratchpack(options);
      const before = new AbortController(), after = new AbortController();
      before.abort();
      const values = [big(1), small(1), { a: 1 }, big(2), small(2), { f() {} }, big(3), small(3), 'text', big(4)];
      const signals = { 7: before.signal, 9: after.signal };
      const calls = values.map((v, i) => sp.encodeAsync(v, { signal: signals[i] }));
      after.abort();
      const order = track(calls);
      const results = await Promise.allSettled(calls);
      await null;
      assert.deepEqual(order, values.map((_, i) => i));
      results.forEach((r, i) => {
        if (i === 5) assert.equal(r.reason.code, 'UNSUPPORTED_TYPE');
        else if (i === 7 || i === 9) assert.equal(r.reason?.code, 'CANCELLED', `call ${i}`);
        else assert.deepEqual(r.value, sp.encode(values[i]), `call ${i}`);
      });
      sp.close();
    });
  }

  test('2,000 equal calls on two workers', async () => {
    const sp = await createScratchpack({ threads: 2 });
    sp._tasks.inlineMax = 0;                        // every array a worker task
    const v = small(7), want = sp.encode(v);
    const calls = Array.from({ length: 2000 }, () => sp.encodeAsync(v));
    const order = track(calls);
    const out = await Promise.all(calls);
    await null;
    assert.deepEqual(order, calls.map((_, i) => i));
    for (const b of out) assert.deepEqual(b, want);
    sp.close();
  });
});

test('arrays under INLINE_MAX_BYTES are encoded here, bigger ones as tasks', async () => {
  const sp = await createScratchpack({ threads: 1 });
  const c = sp._heap.c;                              // the module's calls, as js/ makes them (js/abi.js)
  c.taskFree(c.taskNew());                           // a bound call settles on its first call
  const taskNew = c.taskNew;
  let tasks = 0;
  c.taskNew = () => { tasks++; return taskNew(); };
  try {
    await sp.encodeAsync(new Uint8Array(INLINE_MAX_BYTES - 1).fill(1));   // bin, never a task
    await sp.encodeAsync(new Float64Array(INLINE_MAX_BYTES / 8 - 1));
    assert.equal(tasks, 0);
    await sp.encodeAsync(new Float64Array(INLINE_MAX_BYTES / 8));
    assert.equal(tasks, 1);
  } finally {
    c.taskNew = taskNew;
    sp.close();
  }
});

test('a flood settles over many event-loop turns, in order', async () => {
  const sp = await createScratchpack({ threads: 2 });
  const v = small(3), n = 50000;
  const calls = Array.from({ length: n }, () => sp.encodeAsync(v));
  let settledAtTurn = -1, count = 0;
  calls.forEach((p) => p.then(() => { count++; }));
  setImmediate(() => { settledAtTurn = count; });
  const order = track(calls);
  await Promise.all(calls);
  await null;
  assert.ok(settledAtTurn >= 0 && settledAtTurn < n, `${settledAtTurn} of ${n} had settled at the next turn`);
  assert.equal(order.length, n);
  assert.ok(order.every((x, i) => x === i));
  sp.close();
});

test('a call refused for its arguments (a bad signal, bad options) rejects in its turn too', async () => {
  const sp = await createScratchpack({ threads: 0 });
  try {
    const log = [];
    const calls = [sp.encodeAsync(new Float64Array(1_000_000)), sp.encodeAsync(1, { signal: 'nope' }),
      sp.encodeAsync(1, 5), sp.encodeAsync(Symbol('s')), sp.encodeAsync(2)];
    await Promise.all(calls.map((p, i) => p.then(() => log.push(`${i}: ok`), (e) => log.push(`${i}: ${e.code}`))));
    assert.deepEqual(log, ['0: ok', '1: INVALID_ARGUMENT', '2: INVALID_ARGUMENT', '3: UNSUPPORTED_TYPE', '4: ok']);
  } finally {
    sp.close();
  }
  await assert.rejects(sp.encodeAsync(1), { code: 'CLOSED' });
});
