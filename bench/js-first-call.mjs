// bench/js-first-call.mjs -- what the first call costs a new process: the
// package's module-level encode (the single-threaded module loaded
// synchronously on that call), the same after `await createScratchpack()`
// (loaded asynchronously), both under import and require, and msgpackr's
// pack, each in a fresh `node` process, interleaved, medians of `rounds`.
//
//   node bench/js-first-call.mjs [rounds]      (default 11)
//
// Each child prints the milliseconds from before its import of the package
// to after its first encode returned; the table gives each beside msgpackr's.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROUNDS = Number(process.argv[2] || 11);
const pkg = fileURLToPath(new URL('../js/node.js', import.meta.url));
const value = "({ id: 1, name: 'first', tags: ['a', 'b'], n: [1.5, 2, 3] })";
const cases = {
  'import, module-level encode': `const t0 = performance.now();
    const { encode } = await import(${JSON.stringify(pkg)}); encode(${value});
    console.log(performance.now() - t0);`,
  'require, module-level encode': `const t0 = performance.now();
    const { encode } = require(${JSON.stringify(pkg)}); encode(${value});
    console.log(performance.now() - t0);`,
  'import, await createScratchpack({ wasm: single })': `const t0 = performance.now();
    const { createScratchpack } = await import(${JSON.stringify(pkg)});
    const sp = await createScratchpack({ wasm: 'single' }); sp.encode(${value});
    console.log(performance.now() - t0);`,
  'import, await createScratchpack() (pthread build)': `const t0 = performance.now();
    const { createScratchpack } = await import(${JSON.stringify(pkg)});
    const sp = await createScratchpack(); sp.encode(${value}); sp.close();
    console.log(performance.now() - t0);`,
  'msgpackr: import, pack': `const t0 = performance.now();
    const { pack } = await import('msgpackr'); pack(${value});
    console.log(performance.now() - t0);`,
};
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, code] of Object.entries(cases)) {
    const isRequire = name.startsWith('require');
    const out = execFileSync(process.execPath, isRequire ? ['-e', code] : ['--input-type=module', '-e', code],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8' });
    times[name].push(Number(out.trim()));
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const peer = median(times['msgpackr: import, pack']);
console.log(`first call in a fresh process (import + first encode), median of ${ROUNDS} interleaved runs`);
console.log('| case | ms | × msgpackr |\n| --- | ---: | ---: |');
for (const [name, t] of Object.entries(times))
  console.log(`| ${name} | ${median(t).toFixed(1)} | ${(median(t) / peer).toFixed(2)} |`);
