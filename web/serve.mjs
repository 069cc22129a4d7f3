// serve.mjs -- serves the page (web/), the JS package (js/, as /js/: the
// page loads its module through js/wasm.js and shares some of the
// package's rules, e.g. str header sizes) and the page's own module
// (dist-web/, as /dist-web/), and MessagePack-CSharp's recorded figures
// (bench/dotnet-peer.json, as /recorded/dotnet-peer.json: one file, written
// by npm run peer:dotnet -- --record, read by the page) on 127.0.0.1,
// cross-origin isolated: COOP same-origin + COEP require-corp on every
// response (and CORP on every asset), so the page gets shared memory and
// the pthread build. No dependencies.
//   PORT=8080 (default; 0 picks a free port)   ISOLATION=off drops the
//   COOP/COEP headers (to see the single-threaded fallback)
//   SP_WEB_DIST=path serves another build folder as /dist-web/
// Caching: every response carries an ETag (a hash of the file's bytes) and
// `Cache-Control: no-cache`, so the browser keeps each file and asks again
// on the next load; a file that did not change is answered 304, no body.
// Nothing is cached without asking: a rebuilt module or an edited page file
// is seen on the next load.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const roots = {
  '/dist-web/': resolve(process.env.SP_WEB_DIST || join(here, '..', 'dist-web')),
  '/js/': resolve(here, '..', 'js'),
  '/': resolve(here),
};
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png' };
const isolated = process.env.ISOLATION !== 'off';

// Files served under a name of their own, outside the roots.
const aliases = { '/recorded/dotnet-peer.json': resolve(here, '..', 'bench', 'dotnet-peer.json') };

// The file a URL path names, or null when it would leave its root.
function fileFor(pathname) {
  if (Object.hasOwn(aliases, pathname)) return aliases[pathname];
  const prefix = Object.keys(roots).find((p) => pathname.startsWith(p));
  const root = roots[prefix];
  let rel = decodeURIComponent(pathname.slice(prefix.length)) || 'index.html';
  if (rel.endsWith('/')) rel += 'index.html';
  const file = resolve(root, normalize(rel));
  return file === root || file.startsWith(root + sep) ? file : null;
}

const server = createServer(async (req, res) => {
  const headers = { 'Cache-Control': 'no-cache', 'Cross-Origin-Resource-Policy': 'same-origin' };
  if (isolated) {
    headers['Cross-Origin-Opener-Policy'] = 'same-origin';
    headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
  }
  const file = fileFor(new URL(req.url, 'http://x').pathname);
  if (req.method !== 'GET' && req.method !== 'HEAD' || file === null) {
    res.writeHead(file === null ? 403 : 405, headers).end();
    return;
  }
  try {
    const body = await readFile(file);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    const tagged = { ...headers, ETag: etag, 'Content-Type': types[extname(file)] || 'application/octet-stream' };
    if (String(req.headers['if-none-match'] || '').split(/\s*,\s*/).includes(etag)) {
      res.writeHead(304, tagged).end();
      return;
    }
    res.writeHead(200, tagged);
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch {
    res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('not found\n');
  }
});

server.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => {
  const { port } = server.address();
  console.log(`scratchpack page: http://127.0.0.1:${port}/${isolated ? '' : '  (not cross-origin isolated)'}`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
