// close() with worker threads (issue 20, item 1): the workers end
// themselves before Emscripten frees anything of them, calls in flight
// reject with CLOSED, and processes that close in every state exit 0
// with nothing on stderr. The loop of 100 runs per case is
// bench/close-loop.mjs; this runs a few.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';

import { contract, createScratchpack, encode } from '../../js/index.js';

const run = promisify(execFile);
const child = fileURLToPath(new URL('../../bench/close-child.mjs', import.meta.url));

// The cause of the crash: Emscripten's terminateAllThreads frees the stack
// and thread record of every thread still running, and an idle worker woke
// from its timed wait on freed memory. close() must leave it no thread to
// free: each has returned from its loop and been joined.
for (const threads of [1, 4]) {
  test(`close() ends the workers only once no thread runs (threads: ${threads})`, async () => {
    const sp = await createScratchpack({ threads });
    const pt = sp._m.PThread;
    const seen = [];
    const terminate = pt.terminateAllThreads;
    pt.terminateAllThreads = function () {
      seen.push({ running: pt.runningWorkers.length, threads: Object.keys(pt.pthreads).length });
      return terminate.call(this);
    };
    await sp.encodeAsync(new Float64Array(100000));
    sp.close();
    await new Promise((resolve) => setTimeout(resolve, 20));   // the browser-style poll, were it used
    assert.deepEqual(seen, [{ running: 0, threads: 0 }]);
  });
}

test('calls in flight at close() reject with CLOSED, in order, and later calls throw CLOSED', async () => {
  const sp = await createScratchpack({ threads: 2 });
  const big = new Float64Array(400000).map((_, i) => i);
  const calls = Array.from({ length: 12 }, (_, i) => sp.encodeAsync(i % 3 === 0 ? { i } : big));
  const settled = [];
  calls.forEach((p, i) => p.then(() => settled.push(i), () => settled.push(i)));
  sp.close();
  const results = await Promise.allSettled(calls);
  for (const r of results)
    assert.ok(r.status === 'fulfilled' || r.reason.code === 'CLOSED', r.reason?.message);
  assert.ok(results.some((r) => r.status === 'rejected'));
  assert.deepEqual(settled, [...settled].sort((a, b) => a - b));
  assert.throws(() => sp.encode(1), { code: 'CLOSED' });
  await assert.rejects(sp.encodeAsync(big), { code: 'CLOSED' });
  // Every call, decodes too (they need no worker, but the instance is gone).
  assert.throws(() => sp.decode(Uint8Array.of(1)), { code: 'CLOSED' });
  assert.throws(() => sp.decodeMultiple(Uint8Array.of(1)), { code: 'CLOSED' });
  assert.throws(() => sp.decodeStream([Uint8Array.of(1)]), { code: 'CLOSED' });
});

test('processes that close() in every state exit 0 with nothing on stderr', { timeout: 300000 }, async () => {
  const cases = [];
  for (const threads of [2, 4, 8])
    for (const mode of ['sync', 'sync', 'settled', 'early', 'inflight']) cases.push([threads, mode]);
  const failures = [];
  const one = async ([threads, mode]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [child, String(threads), mode], { timeout: 60000 });
      if (stderr.trim() !== '') failures.push(`${threads} ${mode}: ${stderr.trim().split('\n')[0]}`);
      else assert.equal(JSON.parse(stdout).mode, mode);
    } catch (e) {
      failures.push(`${threads} ${mode}: exit ${e.code} ${String(e.stderr).split('\n').find((l) => /Error/.test(l)) ?? ''}`);
    }
  };
  for (let i = 0; i < cases.length; i += 2) await Promise.all(cases.slice(i, i + 2).map(one));
  assert.deepEqual(failures, []);
});

test('a closed instance is not held by the package, whatever it did before', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  const msg = encode([1, 2]);
  const R = contract({ a: 'uint8' });
  const uses = {
    'decode()': (sp) => sp.decode(msg),
    'decode() with options': (sp) => sp.decode(msg, { binary: 'view' }),
    'encode()': (sp) => sp.encode({ a: 1 }),
    'encodeInto()': (sp) => sp.encodeInto({ a: 1 }, new Uint8Array(100)),
    'a contract': (sp) => sp.decode(sp.encode({ a: 1 }, { contract: R }), { contract: R }),
    'decodeStream()': async (sp) => { for await (const x of sp.decodeStream([msg])) void x; },
  };
  for (const wasm of ['single', 'threads']) {
    for (const [what, use] of Object.entries(uses)) {
      let sp = await createScratchpack({ wasm });
      await use(sp);
      const ref = new WeakRef(sp);
      sp.close();
      sp = null;
      // Until it is collected: a threaded instance waits for its workers
      // to end first (polling), which a loaded machine may take a while to
      // do; held for good, it fails after 10 s.
      for (let i = 0; i < 500 && ref.deref() !== undefined; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));   // (a WeakRef holds its target to the end of the job)
        gc();
      }
      assert.equal(ref.deref(), undefined, `${wasm}: after ${what}, the closed instance is still reachable`);
    }
  }
});
