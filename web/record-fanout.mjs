// record-fanout.mjs -- records the pool fan-out from the page's pthread
// build (dist-web/) under Node, for the page to play when it has no threads
// (not cross-origin isolated): the same flow code (flows/fanout.js run())
// with the same workload, 3 returning threads, written to
// web/recorded/fanout.json with what, where and when it was recorded.
//   node web/record-fanout.mjs [out.json]
// Build the module first (bash tests/build-wasm.sh).
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { loadModule } from '../js/wasm.js';
import { createFlows, flowFiles } from './trace.js';
import fanout from './flows/fanout.js';

const out = process.argv[2] || new URL('./recorded/fanout.json', import.meta.url);
const m = await loadModule({ threaded: true, poolSize: 4, files: flowFiles(), log: (l) => console.error(l) });
const runner = createFlows(m, true);
try {
  const data = await fanout.run(runner, 0, { consumers: '3' }, (text) => process.stderr.write(`\r${text}   `));
  const day = new Date().toISOString().slice(0, 10);
  data.recorded = { date: day, node: process.version, cores: availableParallelism(),
    what: `the pthread build under Node ${process.version} on ${availableParallelism()} cores, ${day} (web/record-fanout.mjs)` };
  writeFileSync(out, `${JSON.stringify(data)}\n`);
  process.stderr.write(`\nwrote ${out}\n`);
} finally {
  runner.close();
}
