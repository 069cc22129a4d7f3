// encodeAsync queues: any number of concurrent calls succeed with bounded
// staging in WASM, with worker threads and without (the pthread build with
// threads: 0, and the single-threaded build); queued calls can be
// cancelled, close() rejects them (CLOSED), and a call that finds the heap full
// waits for the others instead of failing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createScratchpack } from '../../js/index.js';
import { INLINE_MAX_BYTES, QUEUE_MAX_BYTES, taskCost } from '../../js/tasks.js';

const kinds = [{ threads: 2 }, { threads: 0 }, { wasm: 'single' }];

describe('1,000 concurrent encodeAsync calls all succeed', () => {
  for (const options of kinds) {
    test(JSON.stringify(options), { timeout: 120000 }, async () => {
      const sp = await createScratchpack(options);
      const input = Float64Array.from({ length: 100000 }, (_, i) => i / 3);
      const want = sp.encode(input);
      const before = sp.stats().heap.used;
      let most = 0;
      const sample = setInterval(() => { most = Math.max(most, sp.stats().heap.used - before); }, 2);
      const results = await Promise.allSettled(Array.from({ length: 1000 }, () => sp.encodeAsync(input)));
      clearInterval(sample);
      const failed = results.filter((r) => r.status === 'rejected');
      assert.equal(failed.length, 0, failed[0]?.reason?.message);
      for (const r of results) assert.deepEqual(r.value, want);
      const q = sp._tasks.counts();
      assert.equal(q.waiting + q.running + q.stagedBytes, 0);
      assert.ok(q.peakStagedBytes <= QUEUE_MAX_BYTES, `${q.peakStagedBytes} bytes staged at once`);
      assert.ok(q.peakStagedBytes <= q.maxTasks * taskCost(input));
      assert.ok(most < QUEUE_MAX_BYTES, `the heap grew by ${most} bytes`);
      sp.close();
    });
  }
});

test('a call bigger than the staging bound runs alone; smaller ones wait for it', async () => {
  const sp = await createScratchpack({ threads: 2 });
  sp._tasks.maxBytes = 4 << 20;
  const big = new Float64Array(1 << 20);                    // 26 MB estimated: over the bound
  const small = Int32Array.from({ length: 1000 }, (_, i) => i);
  const out = await Promise.all([sp.encodeAsync(small), sp.encodeAsync(big), sp.encodeAsync(small)]);
  assert.deepEqual(out[1], sp.encode(big));
  assert.deepEqual(out[2], sp.encode(small));
  assert.equal(sp._tasks.counts().peakStagedBytes, taskCost(big));
  sp.close();
});

test('without worker threads a big call runs as a task here, one per event-loop turn', async () => {
  const sp = await createScratchpack({ threads: 0 });
  const big = new Int16Array(INLINE_MAX_BYTES);             // 2 x the bound: a task, not encode()
  const order = [];
  const a = sp.encodeAsync(big).then(() => order.push('a'));
  const b = sp.encodeAsync(big).then(() => order.push('b'));
  setImmediate(() => order.push('turn'));
  assert.deepEqual(order, []);                              // nothing ran synchronously
  await Promise.all([a, b]);
  assert.deepEqual(order, ['a', 'turn', 'b']);
  sp.close();
});

for (const options of [{ threads: 0 }, { wasm: 'single' }]) {
  test(`without worker threads, calls that each take longer than the turn's budget run one per event-loop turn (${JSON.stringify(options)})`, async () => {
    const sp = await createScratchpack(options);
    // A getter that spins 3 ms: every encode takes longer than the 2 ms
    // budget, however fast the machine (16 of them ran in one turn).
    const slow = () => ({ get v() { const t = performance.now(); while (performance.now() - t < 3); return 1; } });
    let turn = 0, ticking = true;
    const tick = () => { turn++; if (ticking) setImmediate(tick); };
    setImmediate(tick);
    const turns = await Promise.all(Array.from({ length: 12 }, () => sp.encodeAsync(slow()).then(() => turn)));
    ticking = false;
    for (let i = 1; i < turns.length; i++) assert.ok(turns[i] > turns[i - 1], `calls ${i - 1} and ${i} settled in one turn: ${turns}`);
    sp.close();
  });
}

for (const options of [{ threads: 0 }, { wasm: 'single' }]) {
  test(`without worker threads a call past bigMessage is encoded in JS memory, as encode() writes it (${JSON.stringify(options)})`, async () => {
    // Staged as a task it took its input, segments and result in linear
    // memory, which never shrinks: 8 MiB of doubles failed NOMEM under a
    // 16 MiB maxMemory that encode() of the same array keeps within.
    const sp = await createScratchpack({ ...options, maxMemory: 16 << 20, bigMessage: 4 << 20 });
    try {
      const big = Float64Array.from({ length: 1 << 20 }, (_, i) => i + 0.5);
      const small = new Float64Array(INLINE_MAX_BYTES / 8);     // under bigMessage: still a task
      const [a, b] = await Promise.all([sp.encodeAsync(big), sp.encodeAsync(small)]);
      assert.deepEqual(a, sp.encode(big));
      assert.deepEqual(b, sp.encode(small));
      assert.equal(sp._tasks.counts().peakStagedBytes, taskCost(small));
    } finally {
      sp.close();
    }
  });
}

for (const options of [{ threads: 1 }, { threads: 0 }]) {
  test(`an aborted queued call leaves the queue with CANCELLED, the rest complete (${JSON.stringify(options)})`, async () => {
    const sp = await createScratchpack(options);
    const input = new Float64Array(200000);
    const controllers = Array.from({ length: 20 }, () => new AbortController());
    const calls = controllers.map((c) => sp.encodeAsync(input, { signal: c.signal }));
    const waiting = sp._tasks.counts().waiting;
    assert.ok(waiting >= 18, `${waiting} waiting`);
    controllers[15].abort();
    assert.equal(sp._tasks.counts().waiting, waiting - 1);  // gone at once, before it ever ran
    const results = await Promise.allSettled(calls);
    assert.equal(results[15].reason?.code, 'CANCELLED');
    assert.deepEqual(results.filter((r) => r.status === 'rejected').length, 1);
    sp.close();
  });
}

test('close() rejects queued calls with CLOSED', async () => {
  for (const options of [{ threads: 1 }, { threads: 0 }]) {
    const sp = await createScratchpack(options);
    const calls = Array.from({ length: 10 }, () => sp.encodeAsync(new Float64Array(300000)));
    sp.close();
    const results = await Promise.allSettled(calls);
    assert.ok(results.every((r) => r.status === 'rejected' && r.reason.code === 'CLOSED'),
      results.map((r) => r.reason?.code ?? 'resolved').join());
  }
});

test('a call that finds the heap full waits for the calls in flight, then runs alone', async () => {
  const sp = await createScratchpack({ threads: 2 });
  const c = sp._heap.c;                         // the module's calls, as js/ makes them (js/abi.js)
  c.free(c.alloc(8), 8);                        // a bound call settles on its first call: settle it now
  const alloc = c.alloc;
  let refusals = 0;
  // The heap has room for one staged array at a time: a second is refused.
  c.alloc = (n) => {
    if (n >= 100000 && sp._tasks.counts().running > 0) { refusals++; return 0; }
    return alloc(n);
  };
  try {
    const input = Uint32Array.from({ length: INLINE_MAX_BYTES / 4 + 1000 }, (_, i) => i * 77);   // tasks, not encode()
    const out = await Promise.all(Array.from({ length: 12 }, () => sp.encodeAsync(input)));
    assert.ok(refusals > 0);
    for (const b of out) assert.deepEqual(b, sp.encode(input));
  } finally {
    c.alloc = alloc;
    sp.close();
  }
});

test('a queued typed array whose buffer is transferred rejects its own call (INVALID_ARGUMENT); the queue goes on', async () => {
  for (const options of [{ threads: 0 }, { wasm: 'single' }]) {
    const sp = await createScratchpack(options);
    try {
      const ahead = sp.encodeAsync(new Float64Array(900_000));         // a task (under bigMessage) that runs first; the next one waits for it
      const moved = new Float64Array(100_000).fill(1.5);
      const lost = sp.encodeAsync(moved);
      assert.equal(sp._tasks.counts().waiting, 1, 'the call is queued, not staged yet');
      structuredClone(moved.buffer, { transfer: [moved.buffer] });    // as postMessage(moved, [moved.buffer]) does
      const after = sp.encodeAsync(Int32Array.of(1, 2, 3));
      const [a, l, b] = await Promise.allSettled([ahead, lost, after]);
      assert.equal(a.status, 'fulfilled');
      assert.equal(l.status, 'rejected');
      assert.equal(l.reason.code, 'INVALID_ARGUMENT');
      assert.match(l.reason.message, /800000 bytes .* now has 0 .*transferred/);
      assert.deepEqual([...b.value], [0x93, 1, 2, 3]);
    } finally {
      sp.close();
    }
  }
});
