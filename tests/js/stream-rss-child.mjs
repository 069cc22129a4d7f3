// stream-rss-child.mjs -- run by encode-stream.test.js with --expose-gc:
// node --expose-gc tests/js/stream-rss-child.mjs [records]
// Encodes that many records (default 2,000,000) to a slow Node Writable and
// prints, as JSON, how far RSS rose above its level before the call (sampled
// at every write and every millisecond), the bytes and chunks written, and
// the length encode() gives for the same value (measured afterwards).
import { Writable } from 'node:stream';

import { createScratchpack } from '../../js/index.js';

const n = Number(process.argv[2] || 2000000);
const sp = await createScratchpack();
const records = Array.from({ length: n }, (_, i) =>
  ({ id: i, name: `name-${String(i).padStart(11, '0')}`, score: i / 7, tags: ['a', 'bb', 'ccc'] }));
await sp.encodeToStream(records.slice(0, 20000), new Writable({ write(_c, _e, done) { done(); } }));
globalThis.gc();
const base = process.memoryUsage().rss;
let peak = base, bytes = 0, chunks = 0;
const sample = () => { peak = Math.max(peak, process.memoryUsage().rss); };
const timer = setInterval(sample, 1);
const slow = new Writable({
  highWaterMark: 64 * 1024,
  write(chunk, _enc, done) {
    bytes += chunk.length;
    chunks++;
    sample();
    if (chunks % 8 === 0) setTimeout(done, 1); else setImmediate(done);
  },
});
await sp.encodeToStream(records, slow);
clearInterval(timer);
const expected = sp.encode(records).length;
console.log(JSON.stringify({ records: n, bytes, chunks, expected, growthMiB: +((peak - base) / 2 ** 20).toFixed(1) }));
sp.close();
