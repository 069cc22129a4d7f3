// encodeToStream into node:http responses: an http response corks its
// socket at each write until the next tick, and a client that goes away
// cancels the socket's pending writes (ECANCELED on Node 24) before the
// response closes. The call resolves only once every write called back,
// and a client's abort is CANCELLED on every Node, with nothing left for
// the process to crash on.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import { after, before, test } from 'node:test';

import { createScratchpack, decode, encode } from '../../js/index.js';

let sp, server, port;
const handlers = [];
before(async () => {
  sp = await createScratchpack();
  server = createServer((req, res) => handlers.shift()(req, res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = server.address().port;
});
after(() => { server.close(); sp.close(); });

const rows = (n) => Array.from({ length: n }, (_, i) => ({ id: i, name: `row ${i}`, tags: ['a', 'b'] }));

// One request; resolves to its body, or to null when abort() ends it early.
function get(onData = null) {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path: '/' }, (res) => {
      const parts = [];
      res.on('data', (d) => { parts.push(d); if (onData) onData(req); });
      res.on('end', () => resolve(Buffer.concat(parts)));
      res.on('error', () => resolve(null));
    });
    req.on('error', () => resolve(null));
    req.on('close', () => resolve(null));
    req.end();
    void reject;
  });
}

test('the call resolves once every write of the response called back', async () => {
  const value = { rows: rows(20000) };
  let pending = -1, sent = 0;
  const served = new Promise((resolve, reject) => handlers.push((req, res) => {
    const write = res.write.bind(res);
    let open = 0;
    res.write = (chunk, cb) => { open++; return write(chunk, (e) => { open--; cb?.(e); }); };
    sp.encodeToStream(value, res).then((n) => { pending = open; sent = n; res.end(); resolve(); }, reject);
  }));
  const body = await get();
  await served;
  assert.equal(pending, 0, 'no write still waiting for its callback');
  assert.equal(sent, body.length);
  assert.deepEqual(decode(body), value);
});

test('a response whose socket goes away mid-message: CANCELLED, and the next request is served', async () => {
  const value = { rows: rows(150000) };
  for (const entry of [(v, res) => sp.encodeToStream(v, res), (v, res) => encodeToStreamModule(v, res)]) {
    const outcome = new Promise((resolve) => handlers.push((req, res) => {
      const write = res.write.bind(res);
      res.write = (chunk, cb) => {                          // the client is gone right after the first chunk
        const ok = write(chunk, cb);
        if (!res.socket.destroyed) res.socket.destroy();
        return ok;
      };
      entry(value, res).then(() => resolve('resolved'), resolve);
    }));
    await get();
    const e = await outcome;
    assert.equal(e?.code, 'CANCELLED', `${e?.code}: ${e?.message}`);
  }
  const small = { ok: true };
  handlers.push((req, res) => sp.encodeToStream(small, res).then(() => res.end()));
  assert.deepEqual(await get(), Buffer.from(encode(small)));
});

test("a write cancelled as its socket closes (ECANCELED, Node 24's client abort) is CANCELLED, not SINK", async () => {
  const { Writable } = await import('node:stream');
  for (const code of ['ECANCELED', 'ERR_STREAM_DESTROYED']) {
    let n = 0;
    const w = new Writable({
      write(_c, _e, done) {
        if (++n < 3) return setImmediate(done);
        const e = new Error(code === 'ECANCELED' ? 'write ECANCELED' : 'Cannot call write after a stream was destroyed');
        e.code = code;
        done(e);
      },
    });
    await assert.rejects(sp.encodeToStream({ rows: rows(20000) }, w), { code: 'CANCELLED' });
  }
});

async function encodeToStreamModule(v, res) {
  const { encodeToStream } = await import('../../js/index.js');
  return encodeToStream(v, res);
}
