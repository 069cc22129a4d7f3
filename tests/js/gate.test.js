// The gate between the package and C (wasm/package/): a C job's span, read
// at the offsets of the module's layout table, is what the entry took, and
// the pool can be configured again without leaking.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createScratchpack, decode } from '../../js/index.js';
import { Heap, HeapSink } from '../../js/sinks.js';

// The span record is read at the offsets of the module's layout table
// (js/abi.js): wrong ones would misplace the scratch or the cursor here.
for (const wasm of ['threads', 'single']) {
  test(`${wasm} build: a job's span after begin is the thread's scratch, read through the record`, async () => {
    const sp = await createScratchpack({ wasm, scratchSize: 4096 });
    const m = sp._m, heap = new Heap(m), s = new HeapSink(heap, m._sp_wasm_job_new());
    s.beginArray(4096);
    assert.equal(s.inScratch(), true);
    assert.equal(s.base(), s.pos);
    assert.equal(s.end - s.pos, 4096);
    s.u8[s.pos++] = 0xc3;                                    // true, written by JS
    assert.deepEqual([...s.copyOut()], [0xc3]);
    s.more(8192);                                            // past the scratch: migrates
    assert.equal(s.inScratch(), false);
    assert.ok(s.end - s.pos >= 8192);
    assert.deepEqual([...s.segments()], [Uint8Array.of(0xc3)]);
    s.release();
    sp.close();
  });
}

test('the sink\'s view() is the DataView the writer asks for, and the lease view is separate', async () => {
  const sp = await createScratchpack({ wasm: 'single' });
  const s = new HeapSink(new Heap(sp._m), sp._m._sp_wasm_job_new());
  assert.ok(s.view() instanceof DataView);
  s.beginArray(65536);
  s.u8[s.pos++] = 0xc0;
  const bytes = s.messageView();
  assert.ok(bytes instanceof Uint8Array);
  assert.deepEqual([...bytes], [0xc0]);
  s.release();
  sp.close();
});

test('configuring the pool a second time frees the first pool', async () => {
  const sp = await createScratchpack({ wasm: 'single', pool: 'bucket', scratchSize: 8 });
  sp.stats();                                              // its own block, allocated once
  const live = sp.stats().liveBytes;
  assert.equal(sp._m._sp_wasm_configure(0, 80 * 1024, 100, 0), 0);
  assert.equal(sp.stats().liveBytes, live);                // the same pool again, the first one freed
  const big = 'x'.repeat(100);
  assert.equal(decode(sp.encode(big)), big);               // past the 8-byte scratch: the new pool serves
  assert.equal(sp.stats().sequences.rents, 1);
  sp.close();
});
