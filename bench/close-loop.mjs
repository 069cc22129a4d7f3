// bench/close-loop.mjs -- close() under many runs: how many processes die.
//
//   npm run bench:close              (node bench/close-loop.mjs [runs per thread count] [linger ms])
//
// Owns: nothing shared. Starts bench/close-child.mjs `runs` times (default
// 100) for each thread count (2, 4, 8), the modes (sync, settled, early,
// inflight: see close-child.mjs) taking turns, one process at a time, and
// prints the failures: a non-zero exit, or anything on stderr. Not a
// benchmark of speed; a loop too long for CI (tests/js/close.test.js runs a
// few of each).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] || 100);
const linger = String(process.argv[3] || 400);
const child = fileURLToPath(new URL('./close-child.mjs', import.meta.url));
let total = 0, failed = 0;
const modes = ['sync', 'settled', 'early', 'inflight'];
for (const threads of [2, 4, 8]) {
  const bad = Object.fromEntries(modes.map((m) => [m, 0]));
  let first = '';
  for (let i = 0; i < runs; i++) {
    const mode = modes[i % modes.length];
    const r = spawnSync(process.execPath, [child, String(threads), mode, linger], { encoding: 'utf8', timeout: 60000 });
    if (r.status !== 0 || r.stderr.trim() !== '') {
      bad[mode]++;
      first ||= (r.stderr.split('\n').find((l) => /Error/.test(l)) || `exit ${r.status} ${r.signal ?? ''}`).trim();
    }
  }
  const n = Object.values(bad).reduce((a, b) => a + b, 0);
  total += runs;
  failed += n;
  console.log(`threads ${threads}: ${n} of ${runs} runs failed (${modes.map((m) => `${m} ${bad[m]}`).join(', ')})` +
    (n ? `: ${first}` : ''));
}
console.log(`${failed} of ${total} runs failed`);
process.exitCode = failed === 0 ? 0 : 1;
