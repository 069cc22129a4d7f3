// interop.mjs -- scratchpack JS against MessagePack-CSharp's corpus.
// Owns: reading the exchange files the .NET peer writes (Peer/Records.cs),
// decoding each message with the JS decoder, rendering it with the loose
// rules of Peer/Render.cs (what a JS number and Date hold), and writing
// what the package's encode() makes of the decoded value (js.bin, and
// js-lz4.bin compressed as the peer's message was), which the peer verifies.
// Also the typed contracts: each [MessagePackObject] message of
// contracts.bin is decoded through the JS contract of the same shape
// (contracts.json, the file gen-c turns into interop_dotnet's C schemas;
// Bag, whose Dictionary members C has no schema for, is declared here) and
// encoded again (js-contracts.bin): the bytes must be C#'s. What C wrote
// for the same messages (c-contracts.bin, when present) must read through
// the same contracts and encode to the same bytes.
// Must not touch: the package's internals (public API only).
//
// Usage: node tests/dotnet/interop.mjs DIR
// Prints "interop.mjs: N passed, N failed"; exit code 1 on any failure.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { contract, createScratchpack, decode, Ext } from '../../js/index.js';

const dir = process.argv[2];
if (!dir) { console.error('usage: node tests/dotnet/interop.mjs DIR'); process.exit(2); }

const SKIPPED = 0xffffffff;
const enc = new TextEncoder();
const f64 = new DataView(new ArrayBuffer(8));
let passed = 0, failed = 0;

function fail(name, what) {
  failed++;
  if (failed <= 20) console.error(`interop.mjs: ${name}: ${what}`);
}

function hex(bytes) {
  let s = '';
  for (const b of bytes) s += (b < 16 ? '0' : '') + b.toString(16);
  return s;
}

// Peer/Render.cs's loose rules.
function render(v) {
  if (v === null) return 'nil';
  switch (typeof v) {
    case 'boolean': return v ? 'true' : 'false';
    case 'bigint': return 'n:' + v.toString();
    case 'string': return 's:' + hex(enc.encode(v));
    case 'number':
      if (Number.isNaN(v)) return 'nan';
      if (Object.is(v, -0)) return 'd:-0';
      if (Number.isInteger(v) && Math.abs(v) < 2 ** 63) return 'n:' + BigInt(v).toString();
      f64.setFloat64(0, v);
      return 'd:' + f64.getBigUint64(0).toString(16).padStart(16, '0');
    default: break;
  }
  if (v instanceof Ext) return `x${v.type}:${hex(v.data)}`;
  if (v instanceof Date) return 't:' + v.getTime();
  if (v instanceof Uint8Array) return 'b:' + hex(v);
  if (Array.isArray(v)) return '[' + v.map(render).join(',') + ']';
  if (v instanceof Map) {
    const parts = [];
    for (const [k, x] of v) parts.push(render(k) + '=' + render(x));
    return '{' + parts.join(',') + '}';
  }
  return '?' + Object.prototype.toString.call(v);
}

function readRecords(path) {
  const all = readFileSync(path);
  const dv = new DataView(all.buffer, all.byteOffset, all.byteLength);
  const out = [];
  for (let p = 0; p < all.length;) {
    const n = dv.getUint32(p, true);
    p += 4;
    if (n === SKIPPED) { out.push(null); continue; }
    out.push(all.subarray(p, p + n));
    p += n;
  }
  return out;
}

function writeRecords(path, list) {
  let total = 0;
  for (const m of list) total += 4 + (m ? m.length : 0);
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  let p = 0;
  for (const m of list) {
    dv.setUint32(p, m ? m.length : SKIPPED, true);
    p += 4;
    if (m) { out.set(m, p); p += m.length; }
  }
  writeFileSync(path, out);
}

const instances = {};
async function encoder(compression) {
  instances[compression] ??= await createScratchpack({ compression, wasm: 'single' });
  return instances[compression];
}

async function run(bin, txt, out, lz4) {
  const msgs = readRecords(join(dir, bin));
  const lines = readFileSync(join(dir, txt), 'utf8').split('\n').filter((l) => l.length > 0);
  if (msgs.length !== lines.length) throw new Error(`${bin}: ${msgs.length} records, ${lines.length} lines`);
  const ours = [];
  let identical = 0, outside = 0;
  for (let i = 0; i < msgs.length; i++) {
    const [name, reasons, , loose] = lines[i].split('\t');
    // A timestamp a Date cannot hold decodes as Ext(-1, its bytes): C#'s
    // text has a DateTime there, so the check is that it is one and that
    // the message encodes back to its bytes.
    const tsrange = reasons.split(',').includes('tsrange');
    let value;
    try {
      value = decode(msgs[i], { maps: 'map' });
    } catch (e) {
      fail(name, `decode failed: ${e.code} ${e.message}`); ours.push(null); continue;
    }
    const got = render(value);
    if (tsrange) {
      if (!got.includes('x-1:')) fail(name, `a timestamp outside a Date reads as ${got.slice(0, 150)}, not Ext(-1)`);
      else { outside++; passed++; }
    } else if (got !== loose) fail(name, `reads as ${got.slice(0, 150)}, C# wrote ${loose.slice(0, 150)}`);
    else passed++;
    const mode = !lz4 ? 'none' : name.includes('Lz4BlockArray') ? 'lz4blockarray'
      : name.includes('Lz4Block') ? 'lz4block' : 'none';
    const sp = await encoder(mode);
    let bytes;
    try {
      bytes = sp.encode(value);
    } catch (e) {
      fail(name, `encode failed: ${e.code} ${e.message}`); ours.push(null); continue;
    }
    ours.push(bytes);
    const same = bytes.length === msgs[i].length && bytes.every((b, k) => b === msgs[i][k]);
    if (same) identical++;
    else if (tsrange) fail(name, 'a timestamp outside a Date did not encode back to its bytes');
  }
  writeRecords(join(dir, out), ours);
  console.log(`interop.mjs: ${bin}: ${msgs.length} messages from MessagePack-CSharp decoded` +
    (outside ? ` (${outside} with timestamps outside a JS Date, as Ext(-1), each re-encoded to its bytes)` : '') +
    `; re-encoded byte-identical: ${identical}`);
}

const same = (a, b) => a.length === b.length && a.every((x, k) => x === b[k]);

// The JS contracts of Peer/Contracts.cs: the shared file, and Bag.
function peerContracts() {
  const file = contract(JSON.parse(readFileSync(new URL('contracts.json', import.meta.url), 'utf8')));
  const Bag = contract({
    counts: { map: ['string', 'int32'] },
    points: { map: ['string', file.Point] },
    maybe: 'int32?',
  }, { keys: 'name', name: 'Bag' });
  return { ...file, Bag };
}

// Through the contract: the contract's own decode, then both encodes (the
// contract's, and the package entry's { contract } option) must agree.
async function throughContract(c, bytes) {
  const sp = await encoder('none');
  const value = c.decode(bytes);
  const mine = c.encode(value);
  const entry = sp.encode(value, { contract: c });
  if (!same(mine, entry)) throw new Error('Contract.encode and encode(v, { contract }) disagree');
  const again = sp.decode(bytes, { contract: c });
  if (!same(c.encode(again), mine)) throw new Error('decode(b, { contract }) reads another value');
  return mine;
}

async function contracts() {
  const all = peerContracts();
  const msgs = readRecords(join(dir, 'contracts.bin'));
  const names = readFileSync(join(dir, 'contracts.txt'), 'utf8').split('\n').filter((l) => l.length > 0)
    .map((l) => l.split('\t')[0]);
  const ours = [];
  let identical = 0;
  for (let i = 0; i < msgs.length; i++) {
    const name = names[i], c = all[name.split('.')[0]];
    let bytes = null;
    try {
      bytes = await throughContract(c, msgs[i]);
    } catch (e) {
      fail(name, `through the JS contract ${c?.name}: ${e.code ?? ''} ${e.message}`);
    }
    ours.push(bytes);
    if (bytes === null) continue;
    if (same(bytes, msgs[i])) { identical++; passed++; }
    else fail(name, `the JS contract's bytes differ from C#'s (${bytes.length} B against ${msgs[i].length} B)`);
  }
  writeRecords(join(dir, 'js-contracts.bin'), ours);
  console.log(`interop.mjs: contracts.bin: ${msgs.length} [MessagePackObject] messages read through JS contracts ` +
    `(${Object.keys(all).join(', ')}) and encoded again; byte-identical to C#'s: ${identical}`);
  if (!existsSync(join(dir, 'c-contracts.bin'))) return;
  const fromC = readRecords(join(dir, 'c-contracts.bin'));
  let read = 0;
  for (let i = 0; i < fromC.length; i++) {
    const name = names[i];
    try {
      if (same(await throughContract(all[name.split('.')[0]], fromC[i]), fromC[i])) { read++; passed++; }
      else fail(name, 'C\'s bytes read through the JS contract encode to other bytes');
    } catch (e) {
      fail(name, `C's bytes through the JS contract: ${e.code ?? ''} ${e.message}`);
    }
  }
  console.log(`interop.mjs: c-contracts.bin: ${fromC.length} messages C's schemas wrote, read through JS contracts ` +
    `and encoded to the same bytes: ${read}`);
}

await run('cs.bin', 'cs.txt', 'js.bin', false);
if (existsSync(join(dir, 'lz4.bin'))) await run('lz4.bin', 'lz4.txt', 'js-lz4.bin', true);
if (existsSync(join(dir, 'contracts.bin'))) await contracts();
for (const sp of Object.values(instances)) sp.close();
console.log(`interop.mjs: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
