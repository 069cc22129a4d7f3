// bench/wasm-page/main.mjs -- runs one Emscripten build of
// bench/wasm_workloads.c in the page, as node runs the .cjs builds: main()
// with the arguments of the query (?build=st|mt&args=3,20), its printed
// lines collected. Owns: that one run. Must not touch: the timing (the C
// program times itself) or the table (bench/wasm-chromium.mjs).
// window.__result: { done, out } once main() has exited, { error, out } if
// it failed.
const q = new URLSearchParams(location.search);
const lines = [];
const out = document.getElementById('out');
window.__result = { done: false };

async function run() {
  const build = q.get('build');
  if (build !== 'st' && build !== 'mt') throw new Error(`build must be st or mt, not ${build}`);
  // The pthread build's memory is a SharedArrayBuffer: only in an isolated page.
  if (build === 'mt' && !globalThis.crossOriginIsolated) throw new Error('the page is not cross-origin isolated');
  const { default: factory } = await import(`./web/wasm_workloads-${build}-web.mjs`);
  await new Promise((resolve, reject) => {
    factory({
      arguments: (q.get('args') ?? '').split(',').filter(Boolean),
      print: (l) => lines.push(l),
      printErr: (l) => lines.push(`# ${l}`),
      onExit: (code) => (code === 0 ? resolve() : reject(new Error(`exit code ${code}`))),
      onAbort: (why) => reject(new Error(`abort: ${why}`)),
    }).catch(reject);
  });
}

run().then(
  () => { window.__result = { done: true, out: lines.join('\n') }; out.textContent = lines.join('\n'); },
  (e) => { window.__result = { error: String(e?.stack ?? e), out: lines.join('\n') }; out.textContent = String(e); },
);
