// The npm tarball: it carries the built module, and installed into an empty
// folder it imports and works with no Emscripten, CMake or compiler on PATH.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'scratchpack-pack-'));
after(() => rmSync(work, { recursive: true, force: true }));

test('npm pack ships the built module, installs, and runs with no toolchain on PATH', async () => {
  assert.ok(existsSync(join(root, 'dist/scratchpack.wasm')), 'build the module first (tests/build-wasm.sh)');
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: root });
  const [info] = JSON.parse(stdout);
  const files = info.files.map((f) => f.path);
  for (const f of ['js/index.js', 'js/index.d.ts', 'dist/scratchpack.mjs', 'dist/scratchpack.wasm',
    'dist/scratchpack.worker.js', 'dist/package.json', 'dist/scratchpack-st.wasm', 'dist/scratchpack-wasi.wasm'])
    assert.ok(files.includes(f), `${f} missing from the tarball`);
  assert.ok(!files.some((f) => /^(src|wasm|tests|build)/.test(f)), files.join(' '));

  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name":"app","private":true,"type":"module"}\n');
  await run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', join(work, info.filename)], { cwd: app });
  writeFileSync(join(app, 'main.js'), `
    import { createScratchpack, decode } from 'scratchpack';
    const sp = await createScratchpack({ threads: 1 });
    const bytes = sp.encode({ hello: 'tarball', n: [1, 2, 3], t: Int32Array.of(7, 8) });
    const back = decode(bytes);
    const off = await sp.encodeAsync(Float64Array.of(1.5));
    console.log(JSON.stringify({ back, kernel: sp.stats().kernel, off: off.length }));
    sp.close();
  `);
  const bin = join(work, 'bin');                       // PATH holds node and nothing else
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'node'));
  const res = await run(join(bin, 'node'), ['main.js'], { cwd: app, env: { PATH: bin, HOME: work }, timeout: 30000 });
  assert.deepEqual(JSON.parse(res.stdout), {
    back: { hello: 'tarball', n: [1, 2, 3], t: [7, 8] }, kernel: 'simd128', off: 10,
  });
});
