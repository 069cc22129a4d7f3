// A package whose dist/ lacks a file (a broken install, a clone never
// built): createScratchpack rejects, naming the missing file and what to do,
// instead of failing on an import or waiting forever for a pthread worker.
// Each case runs on a copy of js/ and dist/ with one file taken out.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'scratchpack-missing-'));
after(() => rmSync(work, { recursive: true, force: true }));

// A copy of the package without `file` (or with `replace` in its place);
// resolves its index.js, imported.
async function packageWithout(file, replace) {
  const dir = join(work, file.replace(/\W/g, '_'));
  cpSync(join(root, 'js'), join(dir, 'js'), { recursive: true });
  cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  if (replace === undefined) rmSync(join(dir, 'dist', file));
  else writeFileSync(join(dir, 'dist', file), replace);
  return { dir, sp: await import(pathToFileURL(join(dir, 'js/index.js')).href) };
}

async function rejectsNaming(file, options, replace) {
  const { dir, sp } = await packageWithout(file, replace);
  const err = await Promise.race([
    sp.createScratchpack(options).then((s) => { s.close(); return null; }, (e) => e),
    new Promise((ok) => setTimeout(() => ok(new Error('createScratchpack neither resolved nor rejected in 20 s')), 20000).unref()),
  ]);
  assert.ok(err, `createScratchpack resolved without dist/${file}`);
  assert.equal(err.code, 'INTERNAL', err.message);
  assert.ok(err.message.includes(join(dir, 'dist', file)), err.message);
  assert.match(err.message, /package is incomplete/);
  assert.match(err.message, /npm run build/);
}

test('a missing single-threaded .wasm is named', () => rejectsNaming('scratchpack-st.wasm', { wasm: 'single' }));
test('a missing threaded .wasm is named', () => rejectsNaming('scratchpack.wasm', { threads: 1 }));
test('a missing module script is named', () => rejectsNaming('scratchpack-st.mjs', { wasm: 'single' }));
test('a missing pthread worker is named instead of a pool that never loads', () =>
  rejectsNaming('scratchpack.worker.js', { threads: 1 }));
test('a .wasm that is not WebAssembly (a server\'s fallback page) is named', () =>
  rejectsNaming('scratchpack-st.wasm', { wasm: 'single' }, '<!doctype html><title>not found</title>'));
test('the module-level encode names a missing single-threaded .wasm (it loads that build synchronously)', async () => {
  const { dir, sp } = await packageWithout('scratchpack-st.wasm');
  assert.throws(() => sp.encode([1]), (e) => e.code === 'INTERNAL' &&
    e.message.includes(join(dir, 'dist', 'scratchpack-st.wasm')) && /package is incomplete/.test(e.message));
  await assert.rejects(sp.ready(), { code: 'INTERNAL' });
});
test('the module-level encode names a missing single-threaded script', async () => {
  const { dir, sp } = await packageWithout('scratchpack-st.mjs');
  assert.throws(() => sp.encode([1]), (e) => e.code === 'INTERNAL' &&
    e.message.includes(join(dir, 'dist', 'scratchpack-st.mjs')) && /npm run build/.test(e.message));
});
test('the complete copy loads (the cases above fail for the file they take out)', async () => {
  const { sp } = await packageWithout('scratchpack-wasi.wasm');
  const s = await sp.createScratchpack({ threads: 1 });
  assert.deepEqual(sp.decode(s.encode([1, 'x'])), [1, 'x']);
  assert.deepEqual(sp.decode(sp.encode([2, 'y'])), [2, 'y']);
  s.close();
});
