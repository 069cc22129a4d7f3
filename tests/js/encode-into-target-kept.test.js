// encodeInto remembers whether the last target it copied a big body into is
// shared memory (js/sink-target.js targetShared): asking costs a call into
// C++. The answer belongs to that one target, and the target, which is the
// caller's, is let go a second after it was first asked about.
// Timers are mocked from the start of this file, so no earlier call has a
// real timer running.
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { after, before, mock, test } from 'node:test';

import { createScratchpack } from '../../js/index.js';
import { targetShared } from '../../js/sink-target.js';

mock.timers.enable({ apis: ['setTimeout'] });
let sp;
before(async () => { sp = await createScratchpack({ threads: 0 }); });
after(() => { sp.close(); mock.timers.reset(); });

const plain = (n) => new Uint8Array(n);
const shared = (n) => new Uint8Array(new SharedArrayBuffer(n));
const nextJob = () => new Promise((resolve) => setImmediate(resolve));   // (a WeakRef holds its target to the end of the job)

test('each target gets its own answer, in any order', () => {
  const a = plain(16), b = shared(16), c = plain(16), d = shared(16);
  const asked = [a, b, a, c, d, d, b, c, a, new Uint8Array(b.buffer, 8)];
  assert.deepEqual(asked.map(targetShared), [false, true, false, false, true, true, true, false, false, true]);
});

test('the last target is held until a second after it was first asked about, then let go', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  mock.timers.tick(1000);                      // (whatever the test above left remembered)
  const body = Uint8Array.from({ length: 8192 }, (_, i) => i & 0xff);
  let target = plain(9000);
  assert.equal(sp.encodeInto(body, target), 8195);
  const ref = new WeakRef(target);
  target = null;
  await nextJob();
  gc();
  assert.notEqual(ref.deref(), undefined, 'held while the answer is kept');
  mock.timers.tick(999);
  await nextJob();
  gc();
  assert.notEqual(ref.deref(), undefined, 'held until the second is up');
  mock.timers.tick(1);
  await nextJob();
  gc();
  assert.equal(ref.deref(), undefined, 'the caller\'s target is still reachable a second after');
});

test('a shared target written after a plain one gets the same bytes as encode()', () => {
  const value = [1, Uint8Array.from({ length: 10000 }, (_, i) => (i * 7) & 0xff)];
  const want = sp.encode(value);
  for (const make of [plain, shared, plain, shared]) {
    for (const offset of [0, 1, 3]) {
      const target = make(offset + want.length);
      assert.equal(sp.encodeInto(value, target, offset), want.length);
      assert.deepEqual(target.subarray(offset), want);
    }
  }
});
