// tests/wasi/run.mjs -- runs every C unit test built for wasm32-wasi
// (tests/build-wasi.sh) under node:wasi: 32-bit size_t, no threads.
// A test program that did not build counts as failed. Prints each
// program's own output, then "N passed, N failed" over the programs.
// Each program runs in a Node process of its own (`run.mjs <name>` runs
// one): Node 20's V8 crashes (SIGSEGV in its concurrent GC) now and then
// once one process has run enough of these modules; alone, none does.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WASI } from 'node:wasi';

const root = fileURLToPath(new URL('../..', import.meta.url));
const built = `${root}build-wasi/tests`;
const wanted = readdirSync(`${root}tests/c`)
  .filter((f) => /^test_.*\.c$/.test(f) && f !== 'test_interop.c')   // interop needs msgpack-c
  .map((f) => f.slice(0, -2))
  .concat('readme_example')
  .sort();

async function runOne(name) {
  const file = `${built}/${name}.wasm`;
  if (!existsSync(file)) return { ok: false, why: 'did not build for wasm32-wasi' };
  const wasi = new WASI({ version: 'preview1', args: [name], env: {}, returnOnExit: true });
  const module = await WebAssembly.compile(readFileSync(file));
  const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
  try {
    const rc = wasi.start(instance);
    return { ok: rc === 0, why: `exit code ${rc}` };
  } catch (e) {
    return { ok: false, why: `trapped: ${e.message}` };
  }
}

// The one program named on the command line: its exit code is the test's.
if (process.argv[2]) {
  const r = await runOne(process.argv[2]);
  if (!r.ok) console.log(`  FAIL ${process.argv[2]}: ${r.why}`);
  process.exit(r.ok ? 0 : 1);
}

let passed = 0;
const failed = [];
for (const name of wanted) {
  console.log(`== wasi ${name}`);
  const child = spawnSync(process.execPath, ['--no-warnings', fileURLToPath(import.meta.url), name],
    { stdio: 'inherit' });
  if (child.status === 0) passed++;
  else {
    failed.push(name);
    if (child.signal) console.log(`  FAIL ${name}: node died with ${child.signal}`);
  }
}
if (failed.length) console.log(`failed under wasm32-wasi: ${failed.join(', ')}`);
console.log(`${passed} passed, ${failed.length} failed`);
process.exitCode = failed.length ? 1 : 0;
