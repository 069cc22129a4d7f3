// bench/inspect-json.mjs -- `scratchpack inspect --json` on a big file: its
// wall time and peak RSS, beside the same file through msgpackr's unpack()
// and JSON.stringify(value, null, 2) (what a user would otherwise write),
// in the same run.
//
//   npm run bench:inspect              (node bench/inspect-json.mjs [MB] [file])
//
// The file (default ~138 MB) is an array of records -- ids, names, floats,
// tag arrays, timestamps, a nested map, a small bin in every tenth -- made
// with msgpackr; it is written to a temporary directory unless a path is
// given (made there if it does not exist, and kept), and removed afterwards. Each command runs as a child process
// writing to /dev/null; peak RSS and CPU time (user + system) are the
// child's own (getrusage): on a loaded machine wall time says less.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Packr } from 'msgpackr';

const MB = 1e6;
const want = Number(process.argv[2] || 138) * MB;
const cli = fileURLToPath(new URL('../js/cli.js', import.meta.url));

function records(n, from) {
  const tags = ['red', 'green', 'blue', 'black', 'white', 'ünïcødé', '東京'];
  const out = new Array(n);
  for (let k = 0; k < n; k++) {
    const i = from + k;
    const r = {
      id: i,
      name: `user-${String((i * 7919) >>> 0).padStart(11, '0')}`,
      email: `someone.${i}@example.com`,
      score: i * 1.25 + 0.1,
      big: i * 2 ** 33,
      active: i % 3 === 0,
      tags: [tags[i % 7], tags[(i + 1) % 7], tags[(i + 3) % 7]],
      created: new Date(1.7e12 + i * 1000),
      meta: { level: i % 10, ratio: (i % 97) / 97, note: i % 5 === 0 ? null : 'ok' },
    };
    if (i % 10 === 0) r.blob = Buffer.alloc(32, i & 0xff);
    out[k] = r;
  }
  return out;
}

// Builds an array of records of about `bytes` bytes: encoded in slices, then
// joined under one array 32 header.
function makeFile(bytes) {
  const packr = new Packr({ useRecords: false });
  const parts = [];
  let total = 0, count = 0;
  while (total < bytes) {
    const slice = records(10000, count);
    const b = packr.pack(slice);
    const head = b[0] === 0xdc ? 3 : b[0] === 0xdd ? 5 : 1;   // drop the slice's own array header
    parts.push(b.subarray(head));
    total += b.length - head;
    count += slice.length;
  }
  const header = Buffer.from([0xdd, count >>> 24, (count >>> 16) & 0xff, (count >>> 8) & 0xff, count & 0xff]);
  return Buffer.concat([header, ...parts]);
}

// Runs node with args (stdout to /dev/null); returns [seconds, peak RSS in MiB, exit status].
function timed(args) {
  const probe = 'process.on("exit", () => { const u = process.resourceUsage(); ' +
    'process.stderr.write(`\\nmaxrss ${u.maxRSS} cpu ${u.userCPUTime + u.systemCPUTime}\\n`); });';
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(probe)}`, ...args],
    { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 26 });
  const s = (performance.now() - t0) / 1000;
  const m = /maxrss (\d+) cpu (\d+)/.exec(r.stderr);
  if (r.status !== 0) process.stderr.write(r.stderr);
  return [s, m ? Number(m[1]) / 1024 : NaN, m ? Number(m[2]) / 1e6 : NaN, r.status];
}

const dir = process.argv[3] ? null : mkdtempSync(join(tmpdir(), 'sp-inspect-bench-'));
const file = process.argv[3] || join(dir, 'big.msgpack');
try {
  if (!existsSync(file)) writeFileSync(file, makeFile(want));
  const size = statSync(file).size;
  console.log(`inspect --json on ${(size / MB).toFixed(1)} MB (${file}), node ${process.version}; one run each, the machine may be loaded`);
  const peer = `import { readFileSync } from 'node:fs'; import { unpack } from 'msgpackr';
    process.stdout.write(JSON.stringify(unpack(readFileSync(${JSON.stringify(file)})), null, 2) + '\\n');`;
  const rows = [
    ['scratchpack inspect --json', [cli, 'inspect', file, '--json']],
    ['msgpackr unpack + JSON.stringify', ['--input-type=module', '-e', peer]],
  ];
  for (const [name, args] of rows) {
    const [s, rss, cpu, status] = timed(args);
    console.log(`  ${name.padEnd(34)} ${s.toFixed(2).padStart(7)} s (CPU ${cpu.toFixed(2)} s)   peak RSS ${rss.toFixed(0).padStart(5)} MiB` +
      (status === 0 ? '' : `   (exit ${status})`));
  }
} finally {
  if (dir !== null) rmSync(dir, { recursive: true, force: true });
}
