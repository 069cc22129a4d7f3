// The npm tarball as a user gets it: packed from a clean clone of the
// repository at HEAD (so `prepack` -- npm run build -- must make every
// shipped file from sources alone; uncommitted changes are not in it), it
// holds every package.json "files" entry, and installed into an empty folder
// it imports and works with no Emscripten, CMake or compiler on PATH; its
// types check in a TypeScript project that imports it by name, and its
// `scratchpack` command runs. tests/pack/run.sh runs this (npm test).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'scratchpack-pack-'));
after(() => rmSync(work, { recursive: true, force: true }));
const clone = join(work, 'clone');
const app = join(work, 'app');
const bin = join(work, 'bin');                         // PATH holds node and nothing else
const env = { PATH: bin, HOME: work };

// npm pack --json prints the build's own lines (prepack) before its JSON.
const packInfo = (stdout) => JSON.parse(stdout.slice(stdout.search(/^\[\s*\{/m)))[0];

test('npm pack from a clean clone builds and ships every file, installs, and runs with no toolchain on PATH', async () => {
  const { stdout: head } = await run('git', ['rev-parse', 'HEAD'], { cwd: root });
  await run('git', ['clone', '--quiet', '--no-checkout', root, clone]);
  await run('git', ['checkout', '--quiet', head.trim()], { cwd: clone });
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work],
    { cwd: clone, maxBuffer: 1 << 24, timeout: 600000 });
  const info = packInfo(stdout);
  const files = info.files.map((f) => f.path);
  const { files: shipped } = JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8'));
  for (const entry of shipped) {
    const there = entry.endsWith('/') ? files.some((f) => f.startsWith(entry)) : files.includes(entry);
    assert.ok(there, `package.json "files" names ${entry}, which is not in the tarball`);
  }
  for (const f of ['js/index.js', 'js/node.js', 'js/files-node.js', 'js/index.d.ts', 'LICENSE', 'package.json'])
    assert.ok(files.includes(f), `${f} missing from the tarball`);
  assert.ok(!files.some((f) => /^(src|wasm|tests|build)/.test(f)), files.join(' '));
  // The README's links into docs/ (what a user reads after it) open in the installed package.
  const readme = readFileSync(join(clone, 'README.md'), 'utf8');
  for (const [, doc] of readme.matchAll(/\]\((docs\/[^)#\s]+)/g))
    assert.ok(files.includes(doc), `README links ${doc}, which is not in the tarball`);

  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name":"app","private":true,"type":"module"}\n');
  await run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', join(work, info.filename)], { cwd: app });
  writeFileSync(join(app, 'main.js'), `
    import { createScratchpack, decode } from 'scratchpack';
    const sp = await createScratchpack({ threads: 1 });
    const bytes = sp.encode({ hello: 'tarball', n: [1, 2, 3], t: Int32Array.of(7, 8) });
    const back = decode(bytes);
    const off = await sp.encodeAsync(Float64Array.of(1.5));
    const single = await createScratchpack({ wasm: 'single' });
    const alone = decode(single.encode(['single', 1.5]));
    console.log(JSON.stringify({ back, kernel: sp.stats().kernel, off: off.length, alone, threaded: [sp.threaded, single.threaded] }));
    sp.close();
    single.close();
  `);
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'node'));
  const res = await run(join(bin, 'node'), ['main.js'], { cwd: app, env, timeout: 30000 });
  assert.deepEqual(JSON.parse(res.stdout), {
    back: { hello: 'tarball', n: [1, 2, 3], t: [7, 8] }, kernel: 'simd128', off: 10,
    alone: ['single', 1.5], threaded: [true, false],
  });
  // The module-level entries, ready on import and on require (Node >= 20.19 loads the ESM entry).
  writeFileSync(join(app, 'top.mjs'), `
    import { encode, decode } from 'scratchpack';
    console.log(JSON.stringify(decode(encode({ top: 'import', t: Int32Array.of(1, 2) }))));`);
  writeFileSync(join(app, 'top.cjs'), `
    const { encode, decode } = require('scratchpack');
    const back = decode(encode({ top: 'require', s: 'x'.repeat(20000) }));   // past the JS scratch: into C
    console.log(JSON.stringify({ top: back.top, s: back.s.length, version: require('scratchpack/package.json').version }));`);
  const imported = await run(join(bin, 'node'), ['top.mjs'], { cwd: app, env, timeout: 30000 });
  assert.deepEqual(JSON.parse(imported.stdout), { top: 'import', t: [1, 2] });
  const required = await run(join(bin, 'node'), ['top.cjs'], { cwd: app, env, timeout: 30000 });
  const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
  assert.deepEqual(JSON.parse(required.stdout), { top: 'require', s: 20000, version });   // scratchpack/package.json resolves
});

// (The two tests below use the install of the one above.)
test('a TypeScript project that imports the installed package by name type-checks (strict, nodenext)', async () => {
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, module: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [], noEmit: true },
    files: ['main.ts'],
  }));
  writeFileSync(join(app, 'main.ts'), `
    import { createScratchpack, decode, ScratchpackError, type Decoded } from 'scratchpack';
    interface User { id: number; name: string; tags: readonly string[] }
    class Point { constructor(public x: number, public y: number) {} }
    const sp = await createScratchpack();
    const user: User = { id: 1, name: 'Ada', tags: [] };
    const record: Record<string, unknown> = { user, at: new Point(1, 2) };
    const res = new Response(sp.encode(record));
    const back = decode(new Uint8Array(await res.arrayBuffer())) as Decoded;
    if (back instanceof ScratchpackError) console.log(back.code);
    // @ts-expect-error a lease's view is not a BodyInit
    new Response(sp.encodeView(user).bytes);
    // @ts-expect-error a Set does not encode
    sp.encode(new Set([user]));
  `);
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const r = await run(join(bin, 'node'), [tsc, '-p', app], { cwd: app, env, timeout: 60000 }).catch((e) => e);
  assert.equal(r.code ?? 0, 0, `${r.stdout}${r.stderr}`);
});

test('the installed scratchpack command inspects a file', async () => {
  writeFileSync(join(app, 'small.msgpack'), Buffer.from('82a2496401a44e616d65a568656c6c6f', 'hex'));
  const res = await run(join(app, 'node_modules/.bin/scratchpack'), ['inspect', 'small.msgpack'], { cwd: app, env });
  assert.match(res.stdout, /^000005 +a4 4e 61 6d 65 +fixstr 4 bytes "Name":$/m);
  assert.deepEqual(JSON.parse(res.stdout.slice(res.stdout.indexOf('\n\n'))), { Id: 1, Name: 'hello' });
});
