// The package bundled for the browser as its users do (docs/bundlers.md):
// tests/browser/bundlers/ (a page importing 'scratchpack' by name) built
// with Vite, esbuild and webpack 5, and served by Vite's dev server, then
// run in chromium -- without cross-origin isolation on the single-threaded
// build, and isolated with a pthread (threads: 1). No bundle may hold a
// node: import or the Node file reader, and a file the page cannot load
// (404) makes createScratchpack reject naming it.
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, resolve, sep } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build as esbuild } from 'esbuild';
import { createLogger, createServer as viteServer, build as vite } from 'vite';
import webpack from 'webpack';

import { startBrowser } from './harness.mjs';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const work = mkdtempSync(join(tmpdir(), 'scratchpack-bundlers-'));
const project = join(work, 'project');                 // the user's project: the fixture, and the package installed
const out = { vite: join(work, 'vite'), esbuild: join(work, 'esbuild'), webpack: join(work, 'webpack') };
const types = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };
// What the esbuild recipe copies beside the bundle (docs/bundlers.md).
const esbuildCopies = ['scratchpack.mjs', 'scratchpack.wasm', 'scratchpack.worker.js', 'scratchpack-st.wasm'];

let browser;
const servers = [];
let esbuildInputs = [];
const viteWarnings = [];
let packed;   // webpack's build: { files (every file it read), warnings ('module: first line'), assets }

// docs/bundlers.md's webpack recipe (bundlers/webpack.config.mjs) built with
// webpack's Node API into out.webpack, beside the page as
// html-webpack-plugin would write it: a classic script, main.js.
async function webpackBuild() {
  const { default: config } = await import(pathToFileURL(join(project, 'webpack.config.mjs')));
  const stats = await new Promise((ok, fail) => {
    const compiler = webpack({ ...config, context: project, output: { ...config.output, path: out.webpack } });
    compiler.run((err, st) => compiler.close(() => (err ? fail(err) : ok(st))));
  });
  const { warnings, errors, assets } = stats.toJson({ all: false, warnings: true, errors: true, assets: true });
  const said = (list) => list.map((w) => `${w.moduleName ?? ''}: ${w.message.split('\n')[0]}`);
  if (errors.length) throw new Error(`webpack failed:\n${said(errors).join('\n')}`);
  const html = readFileSync(join(project, 'index.html'), 'utf8');
  const page = html.replace('<script type="module" src="./app.js">', '<script defer src="./main.js">');
  assert.notEqual(page, html, 'the fixture page no longer names ./app.js');
  writeFileSync(join(out.webpack, 'index.html'), page);
  return { files: [...stats.compilation.fileDependencies], warnings: said(warnings), assets };
}

before(async () => {
  cpSync(join(root, 'tests/browser/bundlers'), project, { recursive: true });
  const installed = join(project, 'node_modules/scratchpack');   // what npm install puts there
  for (const f of ['package.json', 'js', 'dist']) cpSync(join(root, f), join(installed, f), { recursive: true });
  const logger = createLogger('warn');
  logger.warn = (msg) => viteWarnings.push(msg);
  await vite({ root: project, configFile: join(project, 'vite.config.mjs'), logLevel: 'warn', customLogger: logger,
    build: { outDir: out.vite, emptyOutDir: true } });
  const r = await esbuild({ entryPoints: [join(project, 'app.js')], bundle: true, format: 'esm', platform: 'browser',
    outdir: out.esbuild, absWorkingDir: project, metafile: true, logLevel: 'silent' });
  esbuildInputs = Object.keys(r.metafile.inputs);
  copyFileSync(join(project, 'index.html'), join(out.esbuild, 'index.html'));
  for (const f of esbuildCopies) copyFileSync(join(installed, 'dist', f), join(out.esbuild, f));
  packed = await webpackBuild();
  browser = await startBrowser();
});
after(async () => {
  await browser?.stop();
  for (const s of servers) s.close();
  rmSync(work, { recursive: true, force: true });
});

// Serves `dir` (cross-origin isolated or not); the names in `hide` answer 404.
function serve(dir, { isolated, hide = [] }) {
  const server = createServer(async (req, res) => {
    const headers = { 'Cache-Control': 'no-store' };
    if (isolated) Object.assign(headers, { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = resolve(dir, `.${path === '/' ? '/index.html' : path}`);
    if (!file.startsWith(dir + sep) || hide.some((name) => file.endsWith(`${sep}${name}`))) return res.writeHead(404, headers).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, { ...headers, 'Content-Type': types[extname(file)] || 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404, headers).end();
    }
  });
  servers.push(server);
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(`http://127.0.0.1:${server.address().port}/`)));
}

// Opens the bundle's page (or `url`'s); resolves window.result and the page's uncaught errors.
async function open(bundler, { isolated, threads = 0, hide, url }) {
  url ??= await serve(out[bundler], { isolated, hide });
  const page = await browser.ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${url}?threads=${threads}`);
  await page.waitForFunction(() => window.result !== undefined, null, { timeout: 30000 });
  const result = await page.evaluate(() => window.result);
  await page.close();
  return { result, errors };
}

const scriptNames = (dir) => readdirSync(dir, { recursive: true }).filter((f) => /\.m?js$/.test(f));
const scripts = (dir) => scriptNames(dir).map((f) => readFileSync(join(dir, f), 'utf8'));
const nodeImport = /\bimport\s*\(\s*["'`]node:|\bfrom\s*["'`]node:/;

test('no bundle holds a node: import or the Node file reader', () => {
  for (const bundler of ['vite', 'esbuild', 'webpack']) {
    const js = scripts(out[bundler]);
    assert.ok(js.length > 0, bundler);
    for (const s of js) assert.doesNotMatch(s, nodeImport, bundler);
    assert.ok(!js.some((s) => s.includes('node:fs/promises')), `${bundler}: the Node file reader is in the bundle`);
  }
  assert.ok(esbuildInputs.some((f) => f.endsWith('js/wasm.js')), esbuildInputs.join(' '));
  assert.ok(!esbuildInputs.some((f) => /js\/(files-node|node)\.js$/.test(f)), esbuildInputs.join(' '));
  assert.ok(packed.files.some((f) => f.endsWith(`${sep}js${sep}wasm.js`)), packed.files.join(' '));
  assert.ok(!packed.files.some((f) => /[/\\]js[/\\](files-node|node)\.js$/.test(f)), packed.files.join(' '));
});

// The worker's Node branch require()s worker_threads and fs; dist/'s
// package.json maps them to nothing for browsers ("browser"), so Vite
// need not externalize them (and say so).
test('vite: the build warns of nothing', () => {
  assert.deepEqual(viteWarnings, []);
});

// webpack builds the package (an error fails the build above) with no
// warning about its own modules (js/); what it says about Emscripten's
// pthread worker (its Node branch's require, its import() of a URL it is
// handed) and the chunk cycle the worker makes (its module starts the
// worker) is in docs/bundlers.md.
test('webpack: only the warnings docs/bundlers.md names', () => {
  for (const w of packed.warnings) {
    assert.match(w, /^(\.\/node_modules\/scratchpack\/dist\/scratchpack\.worker\.js: Critical dependency|: Circular dependency between chunks)/,
      packed.warnings.join('\n'));
  }
});

const expected = (threaded) => ({
  isolated: threaded, threaded, back: { hello: 'bundled', n: [1, 2.5, -3], t: [7, 8] }, off: threaded ? 10 : 0,
});

for (const bundler of ['vite', 'esbuild', 'webpack']) {
  test(`${bundler}: without isolation the page runs the single-threaded build`, async () => {
    const { result, errors } = await open(bundler, { isolated: false });
    assert.deepEqual(result, expected(false));
    assert.deepEqual(errors, []);
  });

  test(`${bundler}: cross-origin isolated, the page runs the pthread build with threads: 1`, async () => {
    const { result, errors } = await open(bundler, { isolated: true, threads: 1 });
    assert.deepEqual(result, expected(true));
    assert.deepEqual(errors, []);
  });
}

test('vite dev server (the package kept out of pre-bundling): single-threaded, then with a pthread when isolated', async () => {
  for (const isolated of [false, true]) {
    const headers = isolated ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
    const server = await viteServer({ root: project, configFile: join(project, 'vite.config.mjs'), logLevel: 'error',
      server: { host: '127.0.0.1', port: 0, headers } });
    await server.listen();
    try {
      const { result, errors } = await open('vite', { url: server.resolvedUrls.local[0], threads: isolated ? 1 : 0 });
      assert.deepEqual(result, expected(isolated));
      assert.deepEqual(errors, []);
    } finally {
      await server.close();
    }
  }
});

test('esbuild: a .wasm the page cannot load (404) rejects, naming its URL', async () => {
  const { result } = await open('esbuild', { isolated: false, hide: ['scratchpack-st.wasm'] });
  assert.match(result.error ?? '', /^INTERNAL: scratchpack could not load http:\/\/127\.0\.0\.1:\d+\/scratchpack-st\.wasm \(HTTP 404\)/);
});

test('esbuild: a pthread worker the page cannot load (404) rejects, naming its URL, instead of waiting forever', async () => {
  const { result } = await open('esbuild', { isolated: true, threads: 1, hide: ['scratchpack.worker.js'] });
  assert.match(result.error ?? '', /^INTERNAL: scratchpack could not load http:\/\/127\.0\.0\.1:\d+\/scratchpack\.worker\.js \(HTTP 404\)/);
});

test('vite: a .wasm the page cannot load (404) rejects, naming its URL', async () => {
  const wasm = readdirSync(join(out.vite, 'assets')).find((f) => /^scratchpack-st-.*\.wasm$/.test(f));
  const { result } = await open('vite', { isolated: false, hide: [wasm] });
  assert.match(result.error ?? '', new RegExp(`^INTERNAL: scratchpack could not load http://127\\.0\\.0\\.1:\\d+/assets/${wasm} \\(HTTP 404\\)`));
});

// webpack names the .wasm by its hash and the worker by its chunk id.
const packedAsset = (from) => packed.assets.find((a) => a.info.sourceFilename === `node_modules/scratchpack/dist/${from}`).name;

test('webpack: a .wasm the page cannot load (404) rejects, naming its URL', async () => {
  const wasm = packedAsset('scratchpack-st.wasm');
  const { result } = await open('webpack', { isolated: false, hide: [wasm] });
  assert.match(result.error ?? '', new RegExp(`^INTERNAL: scratchpack could not load http://127\\.0\\.0\\.1:\\d+/${wasm} \\(HTTP 404\\)`));
});

// The worker chunk's URL is webpack's (no file of the package's name), so
// the rejection says which part failed rather than the URL.
test('webpack: a pthread worker chunk the page cannot load (404) rejects instead of waiting forever', async () => {
  const worker = scriptNames(out.webpack)
    .find((f) => readFileSync(join(out.webpack, f), 'utf8').includes('worker.js received unknown command'));
  const { result } = await open('webpack', { isolated: true, threads: 1, hide: [worker] });
  assert.match(result.error ?? '', /^INTERNAL: scratchpack could not load the pthread worker \(it failed to start\)/);
});
