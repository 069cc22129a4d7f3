// The bundler fixture's page script: imports the package by name, as a user
// would, and leaves window.result: what it encoded and decoded, or the error
// createScratchpack rejected with. ?threads=N asks for a pthread pool.
import { createScratchpack, decode } from 'scratchpack';

const threads = Number(new URLSearchParams(location.search).get('threads') || 0);

async function main() {
  const sp = await createScratchpack({ threads });
  const back = decode(sp.encode({ hello: 'bundled', n: [1, 2.5, -3], t: Int32Array.of(7, 8) }));
  const off = threads > 0 ? (await sp.encodeAsync(Float64Array.of(1.5))).length : 0;
  const out = { isolated: crossOriginIsolated, threaded: sp.threaded, back, off };
  sp.close();
  return out;
}

window.result = main().catch((e) => ({ error: `${e.code}: ${e.message}` }));
