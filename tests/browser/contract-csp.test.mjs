// Contracts in Chromium under a Content-Security-Policy that forbids eval
// (script-src without 'unsafe-eval'; 'wasm-unsafe-eval' lets the module
// compile): contract() finds that new Function is refused and builds its
// code from closures, whose bytes are those of the generated code in Node;
// compile: true says why it cannot. A page without the policy generates code.
// The generic decoder's map shapes (generated object literals) fall back to
// reading maps key by key there, with the same values.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { contract } from '../../js/index.js';
import { startBrowser } from './harness.mjs';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const types = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

// Serves /js/ and /dist/, and a blank page at /, with the policy or without.
function serve(csp) {
  const server = createServer(async (req, res) => {
    const headers = { 'Cache-Control': 'no-store', ...(csp ? { 'Content-Security-Policy': CSP } : {}) };
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/') return res.writeHead(200, { ...headers, 'Content-Type': 'text/html' }).end('<!doctype html><title>sp</title>');
    const file = resolve(root, `.${decodeURIComponent(path)}`);
    if (!/^\/(js|dist)\//.test(path) || !file.startsWith(root + sep)) return res.writeHead(404, headers).end();
    try {
      res.writeHead(200, { ...headers, 'Content-Type': types[extname(file)] || 'application/octet-stream' }).end(await readFile(file));
    } catch {
      res.writeHead(404, headers).end();
    }
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ url: `http://127.0.0.1:${server.address().port}/`, server })));
}

let browser;
const servers = [];
before(async () => { browser = await startBrowser(); });
after(async () => {
  await browser?.stop();
  for (const s of servers) s.close();
});

const fields = { id: 'uint32', name: 'string', score: 'float64', tags: ['string'], at: 'timestamp', note: 'string?' };
const value = { id: 7, name: '이름', score: 2.5, tags: ['a', 'b'], at: 1700000000123, note: null };

// In the page: the contract's mode, its bytes (and through an instance), the value back, compile: true's refusal.
async function inPage(page, arg) {
  return page.evaluate(async ({ fields, value }) => {
    const { contract, createScratchpack, decode } = await import('/js/index.js');
    const v = { ...value, at: new Date(value.at) };
    const R = contract(fields, { keys: 'index' });
    const bytes = R.encode(v);
    const sp = await createScratchpack();
    const viaEntry = sp.encode(v, { contract: R });
    const back = sp.decode(bytes, { contract: R });
    const recs = Array.from({ length: 50 }, (_, i) => ({ id: i, name: `n${i}`, tags: ['x', 'y'], score: i / 4 }));
    const recBytes = sp.encode(recs);
    let recordsOk = true;
    for (let i = 0; i < 40; i++) if (JSON.stringify(decode(recBytes)) !== JSON.stringify(recs)) recordsOk = false;
    sp.close();
    let refusal = null;
    try { contract(fields, { compile: true }); } catch (e) { refusal = e.code; }
    let evalWorks = true;
    try { new Function('return 1'); } catch { evalWorks = false; }
    return {
      evalWorks, compiled: R.compiled, hex: Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(''),
      sameViaEntry: viaEntry.length === bytes.length && viaEntry.every((b, i) => b === bytes[i]),
      back: { ...back, at: back.at.getTime() }, refusal, recordsOk,
    };
  }, arg);
}

for (const csp of [true, false]) {
  test(csp ? 'under a CSP without unsafe-eval, contracts use closures and write the same bytes'
    : 'without the policy, contracts generate code', async () => {
    const s = await serve(csp);
    servers.push(s.server);
    const page = await browser.ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(s.url);
    const r = await inPage(page, { fields, value });
    await page.close();
    assert.deepEqual(errors, []);
    const want = Buffer.from(contract(fields, { keys: 'index', compile: true }).encode({ ...value, at: new Date(value.at) })).toString('hex');
    assert.equal(r.evalWorks, !csp);
    assert.equal(r.compiled, !csp);
    assert.equal(r.refusal, csp ? 'INVALID_ARGUMENT' : null);
    assert.equal(r.hex, want);
    assert.equal(r.sameViaEntry, true);
    assert.deepEqual(r.back, value);
    assert.equal(r.recordsOk, true, 'records decoded 40 times (their shape learnt) differ');
  });
}
