// bench/wasm-chromium.mjs -- bench/wasm_workloads.c in Chromium beside native
// and beside Node: the Emscripten builds (single-threaded and pthread) run in
// a page of Debian's chromium driven by playwright-core, the same C built for
// Node runs under node, and native runs as a process, interleaved in one run;
// prints the table of `npm run bench:wasm` with the browser's and Node's
// versions. bench/wasm-chromium.sh builds the programs and calls this with
// <native> <emscripten-st.cjs> <emscripten-mt.cjs> <web dir> (the .mjs/.wasm
// of wasm_workloads-{st,mt}-web).
// Owns: the browser builds' runs (a tiny server sending COOP/COEP, so the page
// is cross-origin isolated and the pthread build has its SharedArrayBuffer;
// one page load per run, as every other build is a process per run). The
// rounds and the table: bench/wasm-table.mjs.
//
// Options: --node 24 (bench/node-select.mjs: the Node of the node builds);
// --browser-only (native and the two Chromium builds); --quick (browser-only,
// one round of one 5 ms sample: checks that everything runs, for CI; its
// figures mean nothing). Environment: SP_WASM_ROUNDS, SP_WASM_SAMPLES,
// SP_BENCH_SAMPLE_MS as bench:wasm, SP_WASM_CASES (only the cases whose
// name contains it: bench/wasm-table.mjs); CHROMIUM (default /usr/bin/chromium);
// SP_CHROMIUM_JS_FLAGS and SP_NODE_WASM_FLAGS: V8 flags for the page and the
// node builds (e.g. --no-liftoff, to see what a flag changes; not defaults).
import { nodeLine } from './node-select.mjs';   // first: may rerun this script on another Node
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { printTable, runRounds, settings } from './wasm-table.mjs';

const flags = new Set(process.argv.slice(2).filter((a) => a.startsWith('--')));
const [nativeBin, emStFile, emMtFile, webDir] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!webDir) {
  console.error('usage: node bench/wasm-chromium.mjs <native> <em-st.cjs> <em-mt.cjs> <web dir> [--browser-only] [--quick] (see bench/wasm-chromium.sh)');
  process.exit(2);
}
const quick = flags.has('--quick');
const browserOnly = quick || flags.has('--browser-only');
if (quick) Object.assign(process.env, { SP_WASM_ROUNDS: '1', SP_WASM_SAMPLES: '1', SP_BENCH_SAMPLE_MS: '5' });
const set = settings();
const { rounds, samples, sampleMs, args } = set;
const split = (v) => (v ?? '').split(/\s+/).filter(Boolean);
const jsFlags = split(process.env.SP_CHROMIUM_JS_FLAGS);
const nodeFlags = split(process.env.SP_NODE_WASM_FLAGS);

// The page and the two programs, each response with the headers that make the
// page cross-origin isolated.
const pageDir = fileURLToPath(new URL('./wasm-page/', import.meta.url));
const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm' };
const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
  const file = path === '/' ? join(pageDir, 'index.html')
    : path.startsWith('/web/') ? join(webDir, path.slice(5)) : join(pageDir, path.slice(1));
  let body;
  try { body = readFileSync(file); } catch { res.writeHead(404).end(); return; }
  res.writeHead(200, {
    'Content-Type': types[extname(file)] ?? 'application/octet-stream',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  }).end(body);
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ...(jsFlags.length ? [`--js-flags=${jsFlags.join(' ')}`] : [])],
});
let stopping = false;
const stop = async () => { if (!stopping) { stopping = true; await browser.close(); server.close(); } };
try {
  const cdp = await browser.newBrowserCDPSession();
  const { product, jsVersion } = await cdp.send('Browser.getVersion');
  await cdp.detach();

  // One run: a fresh page (a fresh instance of the module), main() to its exit.
  const page = (build) => ({
    name: `chromium ${build}`,
    run: async () => {
      const p = await browser.newPage();
      try {
        await p.goto(`${base}?build=${build}&args=${encodeURIComponent(args.join(','))}`);
        await p.waitForFunction(() => window.__result.done || window.__result.error, null, { timeout: 600000 });
        const r = await p.evaluate(() => window.__result);
        if (r.error) throw new Error(`chromium ${build}: ${r.error}\n${r.out}`);
        return r.out;
      } finally {
        await p.close();
      }
    },
  });
  const proc = (name, cmd, argv) => ({
    name, run: async () => execFileSync(cmd, argv, { encoding: 'utf8', timeout: 600000 }),
  });
  const builds = [
    proc('native', nativeBin, args),
    ...(browserOnly ? [] : [
      proc('node st', process.execPath, [...nodeFlags, emStFile, ...args]),
      proc('node mt', process.execPath, [...nodeFlags, emMtFile, ...args]),
    ]),
    page('st'),
    page('mt'),
  ];
  const result = await runRounds(builds, rounds);
  const lines = [`chromium: ${product}, V8 ${jsVersion}${jsFlags.length ? ` (--js-flags=${jsFlags.join(' ')})` : ''}`];
  if (!browserOnly) lines.push(`node builds on ${nodeLine}${nodeFlags.length ? ` (${nodeFlags.join(' ')})` : ''}`);
  if (quick) lines.push('--quick: one 5 ms sample per case, a check that every build runs; not a measurement');
  printTable(builds, result, set, lines);
} finally {
  await stop();
}
