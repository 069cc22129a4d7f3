// bench/node-select.mjs -- owns which Node a benchmark script runs on.
// Imported first by bench/*.mjs: `--node <22|24|path>` on the command line,
// else the environment variable SP_NODE, names the Node; when that is not
// the one running, the script is run again under it (tests/node.sh fetches
// the pinned 22 and 24 from the npm registry) and this process exits with
// its code. Removes `--node X` from process.argv so the scripts' own
// arguments read as before. Exports the line the benchmarks print.
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const at = process.argv.indexOf('--node');
let want = process.env.SP_NODE || '';
if (at >= 2) {
  want = process.argv[at + 1] ?? '';
  if (!want) { console.error('--node needs a value: 22, 24 or the path of a node binary'); process.exit(2); }
  process.argv.splice(at, 2);
}
if (want && !process.env.SP_NODE_RUNNING) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const found = spawnSync('bash', [`${root}tests/node.sh`, want], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (found.status !== 0) process.exit(found.status ?? 1);
  const bin = found.stdout.trim();
  if (realpathSync(bin) !== realpathSync(process.execPath)) {
    const r = spawnSync(bin, [...process.execArgv, ...process.argv.slice(1)], {
      stdio: 'inherit', env: { ...process.env, SP_NODE_RUNNING: '1' },
    });
    process.exit(r.status ?? 1);
  }
}

export const nodeLine = `Node ${process.versions.node}, V8 ${process.versions.v8}`;
