// The boundary between JS and the WebAssembly modules (js/abi.js): records
// C writes are read through the layouts the module states, a module whose
// table lacks a field is refused, and each module's export list
// (wasm/package/exports.txt, wasm/flows/exports.txt, wasm/wasi/exports.txt)
// is the one source: every name in it is defined once in C and exported by
// the build, every call JS makes is in it, and nothing else is exported.
// In js/, abi.js alone names the package's exports (PACKAGE_CALLS), bound
// once per module to the module's own functions.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { WASI } from 'node:wasi';

import { createScratchpack, decode } from '../../js/index.js';
import { FLOW_CALLS, PACKAGE_CALLS, PACKAGE_UNUSED, cString, packageAbi, packageCalls, readLayout } from '../../js/abi.js';
import { codeFromC, codes } from '../../js/errors.js';
import { Heap } from '../../js/sinks.js';
import { KIND } from '../../js/typed.js';
import { loadModule } from '../../js/wasm.js';
import { createFlows, flowFiles } from '../../web/trace.js';

const root = new URL('../../', import.meta.url);
const read = (path) => readFileSync(new URL(path, root), 'utf8');
const exportsOf = (path) => read(path).split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
const filesIn = (dir, ext) => readdirSync(new URL(dir, root)).filter((f) => f.endsWith(ext)).map((f) => `${dir}${f}`);

// Stages `task` as js/tasks.js does, through the word offsets abi.js read.
function stageTask(m, heap, values, { cancel = 0 } = {}) {
  const F = packageAbi(m, heap.u8).task;
  const src = heap.alloc(values.byteLength, 'test');
  const task = m._sp_wasm_task_new() >>> 0;
  heap.check(task + F.bytes);
  heap.u8.set(new Uint8Array(values.buffer), src);
  const w = task >>> 2;
  heap.u32[w + F.kind] = KIND.I32;
  heap.u32[w + F.n] = values.length;
  heap.u32[w + F.src] = src;
  heap.u32[w + F.cancel] = cancel;
  return { F, src, task, w };
}

for (const wasm of ['threads', 'single']) {
  test(`${wasm} build: a task record C wrote is read through the offsets abi.js got from C`, async () => {
    const sp = await createScratchpack({ wasm });
    const m = sp._m, heap = new Heap(m);
    const values = Int32Array.from({ length: 1000 }, (_, i) => i * 1000);
    const { F, src, task, w } = stageTask(m, heap, values);
    m._sp_wasm_task_run(task);
    heap.check(task + F.bytes);
    assert.equal(heap.u32[w + F.state], F.done);
    assert.equal(heap.u32[w + F.code], 0);
    const p = heap.u32[w + F.result] >>> 0, n = heap.u32[w + F.resultLen];
    heap.check(p + n);
    assert.deepEqual(decode(heap.u8.slice(p, p + n), { typedArrays: Int32Array }), values);
    assert.equal(cString(heap.u8, heap.u32[w + F.cause]), '');
    m._sp_wasm_free(p, n);
    heap.free(src, values.byteLength);
    m._sp_wasm_task_free(task);
    sp.close();
  });
}

test('the span record the heap sinks read is the one the layout table states', async () => {
  for (const wasm of ['threads', 'single']) {
    const sp = await createScratchpack({ wasm });
    const heap = new Heap(sp._m), { size, fields } = packageAbi(sp._m, heap.u8).layout.records.span;
    assert.deepEqual({ ...heap.span }, { size, cur: fields.cur.offset, end: fields.end.offset,
      base: fields.base.offset, mode: fields.mode.offset, scratch: packageAbi(sp._m, heap.u8).layout.consts.modeScratch });
    sp.close();
  }
});

test('a cancelled task reports CANCELLED and its cause through the record', async () => {
  const sp = await createScratchpack({ wasm: 'single' });
  const m = sp._m, heap = new Heap(m);
  const values = new Int32Array(100000);
  const { F, src, task, w } = stageTask(m, heap, values, { cancel: 1 });
  m._sp_wasm_task_run(task);
  heap.check(task + F.bytes);
  assert.equal(heap.u32[w + F.state], F.done);
  assert.equal(codeFromC(heap.u32[w + F.code]), codes.CANCELLED);
  assert.equal(heap.u32[w + F.result], 0);
  assert.notEqual(cString(heap.u8, heap.u32[w + F.cause]), '');
  heap.free(src, values.byteLength);
  m._sp_wasm_task_free(task);
  sp.close();
});

test('stats() has the shape C\'s stats record states, and counts what an encode did', async () => {
  const sp = await createScratchpack({ wasm: 'single', scratchSize: 64 });
  const before = sp.stats();
  sp.encode({ text: 'x'.repeat(1000) });         // past the scratch: a sequence and its arrays
  const s = sp.stats();
  assert.deepEqual(Object.keys(s.alloc), ['allocCalls', 'allocBytes', 'freeCalls', 'freeBytes', 'unpooledCalls', 'unpooledBytes']);
  assert.deepEqual(Object.keys(s.pool), ['rents', 'returns', 'slotHits', 'partitionHits', 'fallbackHits', 'lockWaits',
    'fresh', 'unpooled', 'drops', 'trims', 'cached', 'cachedBytes']);
  assert.deepEqual(Object.keys(s.sequences), ['rents', 'returns', 'fresh', 'drops', 'lockWaits', 'idle']);
  assert.deepEqual(Object.keys(s.heap), ['used', 'total', 'size', 'max', 'staging']);
  assert.equal(typeof s.liveBytes, 'number');
  assert.equal(s.sequences.rents, before.sequences.rents + 1);
  assert.equal(s.sequences.returns, before.sequences.returns + 1);
  assert.ok(s.pool.rents > before.pool.rents);
  assert.ok(s.heap.used > 0 && s.heap.used <= s.heap.total);
  sp.close();
});

test('a module whose layout table lacks a field JS reads is refused', async () => {
  const sp = await createScratchpack({ wasm: 'single' });
  const m = sp._m, heap = new Heap(m);
  const name = heap.alloc(8, 'test'), table = heap.alloc(24, 'test');
  heap.u8.set(new TextEncoder().encode('span\0'), name);
  heap.u32.set([name, 0, 16, 0, 0, 0], table >>> 2);      // the record, no fields
  const fake = { _sp_wasm_abi: () => table };
  assert.deepEqual(readLayout(heap.u8, table), { records: { span: { size: 16, fields: {} } }, consts: {} });
  assert.throws(() => packageAbi(fake, heap.u8), { code: 'INTERNAL', message: /'span' has no field 'cur'/ });
  heap.free(name, 8);
  heap.free(table, 24);
  sp.close();
});

// The events sp_flow_writer records for [1..6, "ABCD"] in an 8-byte scratch
// (tests/web/model.test.mjs plays them), without addresses and thread ids.
function exceedsTrace() {
  const ev = (kind, o = {}) => ({ kind, depth: 1, buffer: null, flag: 0, index: 0, offset: 0, size: 0, ...o });
  const write = (buffer, offset, bytes) => ev('WRITE', { buffer, offset, size: bytes.length, bytes: [...bytes] });
  const e = [ev('ENTRY', { flag: 1, size: 8 }), ev('SCRATCH', { size: 8 })];
  for (let i = 0; i < 7; i++) e.push(ev('RESERVE', { flag: 1, offset: i, size: 1, buffer: 'scratch' }), write('scratch', i, [i ? i : 0x97]));
  e.push(ev('RESERVE', { flag: 0, offset: 7, size: 5, buffer: 'scratch' }), ev('SEGMENT', { size: 32768, flag: 1 }),
    ev('MIGRATE', { size: 7 }), write('segment', 7, [0xa4, 0x41, 0x42, 0x43, 0x44]), ev('COPY_OUT', { flag: 2, size: 12 }),
    ev('RELEASE', { size: 1 }), ev('EXIT', { size: 12 }));
  return e;
}

for (const threaded of [false, true]) {
  test(`flows module (${threaded ? 'threads' : 'single'}): events and measurements read through its layout table`, async () => {
    const m = await loadModule({ threaded, poolSize: 1, files: flowFiles() });
    const flows = createFlows(m, threaded);
    try {
      const t = flows.writer({ nints: 6, text: 'ABCD', scratch: 8 });
      assert.equal(t.code, 0);
      const seen = t.events.map(({ addr, thread, bytes, ...e }) => (bytes ? { ...e, bytes: [...bytes] } : e));
      assert.deepEqual(seen, exceedsTrace());
      assert.deepEqual([...t.result], [0x97, 1, 2, 3, 4, 5, 6, 0xa4, 0x41, 0x42, 0x43, 0x44]);
      const env = flows.envelope({ mode: 2, before: 'AAAAAAAAAA', id: 7, name: 'inner' });
      assert.equal(env.readBack, 'Before="AAAAAAAAAA" Inner.Id=7 Inner.Name="inner" After=99');
      const r = flows.measure({ entry: 0, big: false, warm: 2, n: 20 });
      assert.deepEqual(Object.keys(r), ['code', 'bytesPerCall', 'allocsPerCall', 'length', 'usPerCall']);
      assert.equal(r.code, 0);
      assert.equal(r.length, 17);                  // Small {7, "inner", 1.5}
      assert.equal(r.bytesPerCall, 17);            // to_array allocates the result only
    } finally {
      flows.close();
    }
  });
}

// ---- the export lists --------------------------------------------------------

// Names defined (not declared, not static) at file scope in C sources.
function definedIn(files) {
  const names = [];
  for (const f of files)
    for (const [, name] of read(f).matchAll(/^(?!static\b)[A-Za-z_][\w \t*]*?\b(sp_\w+)\([^;{]*\)\s*\{/gm)) names.push(name);
  return names;
}

const once = (list) => list.filter((n, i) => list.indexOf(n) !== i);

const MODULES = [
  { list: 'wasm/package/exports.txt', sources: filesIn('wasm/package/', '.c'), prefix: 'sp_wasm_' },
  { list: 'wasm/flows/exports.txt', sources: filesIn('wasm/flows/', '.c'), prefix: 'sp_flow_' },
  { list: 'wasm/wasi/exports.txt', sources: ['wasm/wasi/sp_wasi.c'] },
];

test('every exported name is listed once and defined in its module\'s C; every C export is listed', () => {
  for (const { list, sources, prefix } of MODULES) {
    const names = exportsOf(list), defined = definedIn(sources);
    const header = sources.filter((f) => f.endsWith('.c')).map((f) => f.replace(/[^/]*$/, '')).map((dir) =>
      filesIn(dir, '.h').map(read).join('\n')).join('\n');
    assert.deepEqual(once(names), [], `${list} names these twice`);
    for (const n of names.filter((x) => x.startsWith('sp_')))
      assert.ok(defined.includes(n), `${n} (${list}) is defined nowhere in ${sources}`);
    if (prefix)                                   // the module's prefix: exported, or C's own (declared in its header)
      for (const d of new Set(defined.filter((x) => x.startsWith(prefix))))
        assert.ok(names.includes(d) || header.includes(`${d}(`), `${d} is defined in C but ${list} does not list it`);
  }
});

// Every file of JS that calls into a module: the package, the page, the
// benchmarks, the tests (this one excepted: it names fakes) and the memory
// hook Emscripten links.
function callers() {
  const dirs = ['js/', 'web/', 'web/flows/', 'bench/', 'tests/js/', 'tests/browser/'];
  const files = dirs.flatMap((d) => filesIn(d, '.js').concat(filesIn(d, '.mjs'))).concat(['wasm/sp_memory.js']);
  return files.filter((f) => !f.endsWith('abi.test.js')).map((f) => [f, read(f)]);
}

test('abi.js binds every name of the package\'s export list, or says js/ does not call it', () => {
  const bound = Object.values(PACKAGE_CALLS), listed = exportsOf('wasm/package/exports.txt').map((n) => `_${n}`);
  assert.deepEqual(once([...bound, ...PACKAGE_UNUSED]), [], 'named twice in js/abi.js');
  assert.deepEqual([...bound, ...PACKAGE_UNUSED].sort(), listed.sort());
});

test('no file in js/ or web/ but abi.js names a module\'s export', () => {
  for (const f of [...filesIn('js/', '.js'), ...filesIn('web/', '.js')].filter((x) => x !== 'js/abi.js'))
    assert.doesNotMatch(read(f), /_sp_(?:wasm|flow)_|\b_(?:malloc|free)\b/, `${f} names an export: call it through js/abi.js`);
});

test('abi.js names every sp_ export of the flows module\'s list, once', () => {
  const named = Object.values(FLOW_CALLS).map((n) => n.slice(1));
  assert.equal(new Set(named).size, named.length);
  assert.deepEqual([...named].sort(), exportsOf('wasm/flows/exports.txt').sort());
});

for (const wasm of ['threads', 'single']) {
  test(`${wasm} build: a bound call is the module's own function from its first call on`, async () => {
    const sp = await createScratchpack({ wasm });
    const m = sp._m, c = packageCalls(m);
    assert.equal(packageCalls(m), c, 'bound once per module');
    assert.equal(c, sp._heap.c);
    // Heap called memoryMax when it was made; kernel is called by stats() only.
    assert.equal(c.memoryMax, m._sp_wasm_memory_max);
    assert.match(Function.prototype.toString.call(c.memoryMax), /native code/);
    assert.equal(cString(sp._heap.u8, c.kernel()), sp.stats().kernel);
    assert.match(Function.prototype.toString.call(c.kernel), /native code/);
    sp.close();
  });
}

test('every call JS makes into a module is in its export list, and every listed name is called', () => {
  const listed = new Set([...exportsOf('wasm/package/exports.txt'), ...exportsOf('wasm/flows/exports.txt')]);
  const called = new Set();
  for (const [file, text] of callers())
    for (const [, name] of text.matchAll(/\b_(sp_(?:wasm|flow)_\w+)/g)) {
      assert.ok(listed.has(name), `${file} calls _${name}, which no export list names`);
      if (file !== 'js/abi.js' || !PACKAGE_UNUSED.includes(`_${name}`)) called.add(name);   // its list of unused ones calls none
    }
  for (const n of listed)
    if (n.startsWith('sp_')) assert.ok(called.has(n), `${n} is exported but no JS calls it`);
});

test('the modules export exactly their lists', async () => {
  for (const wasm of ['threads', 'single']) {
    const sp = await createScratchpack({ wasm });
    const ours = Object.keys(sp._m).filter((k) => k.startsWith('_sp_')).sort();
    assert.deepEqual(ours, exportsOf('wasm/package/exports.txt').map((n) => `_${n}`).sort(), `${wasm} build`);
    sp.close();
  }
  const m = await loadModule({ threaded: false, files: flowFiles() });
  for (const n of exportsOf('wasm/flows/exports.txt')) assert.equal(typeof m[`_${n}`], 'function', `flows: _${n}`);
  assert.deepEqual(Object.keys(m).filter((k) => k.startsWith('_sp_')).sort(),
    exportsOf('wasm/flows/exports.txt').filter((n) => n.startsWith('sp_')).map((n) => `_${n}`).sort());
  const wasi = new WASI({ version: 'preview1', args: [], env: {} });
  const inst = await WebAssembly.instantiate(readFileSync(new URL('dist/scratchpack-wasi.wasm', root)), wasi.getImportObject());
  const got = Object.keys(inst.instance.exports).filter((k) => k !== 'memory' && k !== '_initialize').sort();
  assert.deepEqual(got, exportsOf('wasm/wasi/exports.txt').sort());
});
