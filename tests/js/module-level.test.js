// The module-level entries: encode, encodeInto, encodeView, encodeToStream
// beside decode, decodeMultiple and decodeStream, ready on import with no
// await, as msgpackr's pack/unpack are -- under `import`, and under
// `require` (which loads the ESM entry on Node >= 20.19 only while the
// module graph has no top-level await). The require cases run in a child
// `node` that resolves the package by name through its "exports", as an
// installed package is. Where the module cannot load synchronously (a
// browser; here: Node with require() of ES modules turned off), a call before
// `await ready()` throws NOT_READY and the same call after it works.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as pkg from '../../js/node.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
// An app folder whose node_modules/scratchpack is this repository.
const app = mkdtempSync(join(tmpdir(), 'scratchpack-app-'));
mkdirSync(join(app, 'node_modules'));
symlinkSync(root, join(app, 'node_modules', 'scratchpack'), 'dir');
writeFileSync(join(app, 'package.json'), '{"name":"app","private":true}\n');
after(() => rmSync(app, { recursive: true, force: true }));

const node = (args, script) => execFileSync(process.execPath, [...args, script],
  { cwd: app, encoding: 'utf8', timeout: 60000 }).trim();

test('encode and decode work on import, with no await and no instance', () => {
  const value = { id: 7, name: 'newcomer', list: [1, 'two', null], big: 'x'.repeat(100000), t: Int32Array.of(1, 2) };
  const bytes = pkg.encode(value);
  assert.ok(bytes instanceof Uint8Array);
  assert.deepEqual(pkg.decode(bytes), { ...value, t: [1, 2] });
  assert.deepEqual(pkg.decode(pkg.encode({ Id: 1, Name: 'hello' })), { Id: 1, Name: 'hello' });
  assert.equal(Buffer.from(pkg.encode({ Id: 1, Name: 'hello' })).toString('hex'), '82a2496401a44e616d65a568656c6c6f');
});

test('encodeInto, encodeView and decodeMultiple at module level', () => {
  const target = new Uint8Array(16);
  const n = pkg.encodeInto([1, 300], target, 2);
  assert.equal(n, 5);                            // 92 01 cd 01 2c
  assert.deepEqual(pkg.decode(target.subarray(2, 2 + n)), [1, 300]);
  assert.throws(() => pkg.encodeInto('x'.repeat(100), target), { code: 'BUFFER_TOO_SMALL' });
  const lease = pkg.encodeView({ a: 1 });
  assert.deepEqual(pkg.decode(lease.bytes), { a: 1 });
  lease.release();
  const log = Buffer.concat([pkg.encode(1), pkg.encode('two'), pkg.encode([3])]);
  assert.deepEqual([...pkg.decodeMultiple(log)], [1, 'two', [3]]);
});

test('encodeToStream and decodeStream at module level', async () => {
  const chunks = [];
  const sink = new Writable({ write(c, _e, done) { chunks.push(c); done(); } });
  const rows = Array.from({ length: 5000 }, (_, i) => ({ i, s: `row ${i}` }));
  const n = await pkg.encodeToStream({ rows }, sink);
  const all = Buffer.concat(chunks);
  assert.equal(n, all.length);
  const got = [];
  for await (const v of pkg.decodeStream([all.subarray(0, 10), all.subarray(10)])) got.push(v);
  assert.deepEqual(got, [{ rows }]);
});

test('ready() resolves, and errors keep their codes at module level', async () => {
  await pkg.ready();
  assert.throws(() => pkg.encode(() => 1), { code: 'UNSUPPORTED_TYPE' });
  assert.throws(() => pkg.decode(Uint8Array.of(0x92, 0x01)), { code: 'TRUNCATED' });
  assert.equal(pkg.codes.NOT_READY, 'NOT_READY');
});

test('require("scratchpack") gives encode and decode ready at once (no top-level await in the graph)', () => {
  const out = node(['-e'], `
    const sp = require('scratchpack');
    const bytes = sp.encode({ hello: 'require', n: [1, 2, 3], t: Float64Array.of(1.5) });
    const n = sp.encodeInto('abc', new Uint8Array(8));
    console.log(JSON.stringify({ back: sp.decode(bytes), n, hex: Buffer.from(sp.encode([1, 'a'])).toString('hex'),
      fns: ['encode', 'decode', 'encodeInto', 'encodeView', 'encodeToStream', 'decodeStream', 'decodeMultiple',
        'ready', 'createScratchpack'].filter((k) => typeof sp[k] === 'function').length }));`);
  assert.deepEqual(JSON.parse(out), { back: { hello: 'require', n: [1, 2, 3], t: [1.5] }, n: 4, hex: '9201a161', fns: 9 });
});

test('import of the package by name gives the same, and the process exits on its own', () => {
  const out = node(['--input-type=module', '-e'], `
    import { encode, decode } from 'scratchpack';
    console.log(JSON.stringify(decode(encode({ hello: 'import' }))));`);
  assert.deepEqual(JSON.parse(out), { hello: 'import' });
});

test('where the module cannot load synchronously: NOT_READY before ready(), then it works', () => {
  const out = node(['--no-experimental-require-module', '--input-type=module', '-e'], `
    import { encode, decode, ready } from 'scratchpack';
    let code = null;
    try { encode(1); } catch (e) { code = e.code + ': ' + /await ready\\(\\)/.test(e.message); }
    await ready();
    console.log(JSON.stringify({ code, back: decode(encode([1, 'after'])) }));`);
  assert.deepEqual(JSON.parse(out), { code: 'NOT_READY: true', back: [1, 'after'] });
});

test('there, encodeToStream waits for the module instead of throwing', () => {
  const out = node(['--no-experimental-require-module', '--input-type=module', '-e'], `
    import { encodeToStream, decode } from 'scratchpack';
    const chunks = [];
    const sink = new WritableStream({ write(c) { chunks.push(c); } });
    const n = await encodeToStream({ streamed: true }, sink);
    console.log(JSON.stringify({ n, back: decode(Buffer.concat(chunks)) }));`);
  assert.deepEqual(JSON.parse(out), { n: 11, back: { streamed: true } });
});

test('module-level encodes while createScratchpack({ wasm: "single" }) loads the same script all succeed', () => {
  // (require() of a module whose import() is in flight fails inside Node: both load it by require.)
  const out = node(['--input-type=module', '-e'], `
    import { createScratchpack, decode, encode } from 'scratchpack';
    const loading = createScratchpack({ wasm: 'single' });
    const errors = new Set();
    let calls = 0;
    const tick = setInterval(() => {
      try { decode(encode([calls++])); } catch (e) { errors.add(e.code + ': ' + e.message); }
    }, 0);
    for (let i = 0; i < 5; i++) await new Promise((ok) => setImmediate(ok));
    try { decode(encode('now')); } catch (e) { errors.add(e.code + ': ' + e.message); }
    const sp = await loading;
    clearInterval(tick);
    console.log(JSON.stringify({ errors: [...errors], back: decode(sp.encode([1, 'own'])) }));
    sp.close();`);
  assert.deepEqual(JSON.parse(out), { errors: [], back: [1, 'own'] });
});
