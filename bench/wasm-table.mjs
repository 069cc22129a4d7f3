// bench/wasm-table.mjs -- what bench/wasm-vs-native.mjs and
// bench/wasm-chromium.mjs share: running the builds of bench/wasm_workloads.c
// in interleaved rounds and printing WASM's time over native's.
// Owns: the round order, reading a run's output, the ratio table. Must not
// touch: how a build runs (each driver gives a `run` per build: a process, a
// page load) or which Node runs the driver (bench/node-select.mjs).
//
// A build is { name, run: async () => stdout of one run of the program };
// the first build is native, the one every ratio divides by.

const int = (name, dflt) => {
  const v = Number.parseInt(process.env[name] ?? '', 10);
  return Number.isInteger(v) && v > 0 ? v : dflt;
};

/** The method's knobs from the environment (defaults: 7 rounds, 3 samples of
 *  ~20 ms, every case); args: the program's arguments that say so
 *  (SP_WASM_CASES=<substring>: only the cases whose name contains it). */
export function settings() {
  const rounds = int('SP_WASM_ROUNDS', 7);
  const samples = String(int('SP_WASM_SAMPLES', 3));
  const sampleMs = String(int('SP_BENCH_SAMPLE_MS', 20));
  const cases = process.env.SP_WASM_CASES || '';
  return { rounds, samples, sampleMs, cases, args: [samples, sampleMs, ...(cases ? ['0', cases] : [])] };
}

/** One run's output: { times: { case: [median, best] }, kernel }. */
export function parseRun(out) {
  const times = {};
  let kernel = '?';
  for (const line of out.split('\n')) {
    const [k, med, best] = line.trim().split(/\s+/);
    if (k === 'kernel') kernel = med;
    else if (k && k !== 'checksum' && best !== undefined) times[k] = [Number(med), Number(best)];
  }
  return { times, kernel };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Runs every build once a round, the order rotated by the round; returns
 *  { got: per build { case: [[median, best] per run] }, kernels }. */
export async function runRounds(builds, rounds) {
  const got = builds.map(() => ({}));
  const kernels = builds.map(() => '?');
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < builds.length; k++) {
      const i = (k + r) % builds.length;
      const { times, kernel } = parseRun(await builds[i].run());
      kernels[i] = kernel;
      for (const [c, t] of Object.entries(times)) (got[i][c] ??= []).push(t);
    }
    process.stderr.write(`round ${r + 1}/${rounds}\r`);
  }
  process.stderr.write('\n');
  return { got, kernels };
}

const targets = { 'b.records-encode': 1.3, 'b.records-decode': 1.3, 'c.ints-encode': 1.5 };
const fmt = (ns) => (ns >= 1e4 ? `${(ns / 1e3).toFixed(1)}k` : ns.toFixed(1));
const best = (runs) => Math.min(...runs.map((t) => t[1]));
const med = (runs) => median(runs.map((t) => t[0]));

/** Prints the ratio table (and the peers' table when their rows are there);
 *  `lines` are printed first (what ran where). */
export function printTable(builds, { got, kernels }, { rounds, samples, sampleMs, cases }, lines) {
  console.log(`WASM vs native, ${rounds} interleaved rounds x ${samples} samples of ~${sampleMs} ms; ` +
    (cases ? `cases matching '${cases}'; ` : '') +
    'ns/op: best sample; ratio = WASM / native, by bests (by medians of the runs in brackets)');
  for (const l of lines) console.log(l);
  console.log(`int32 kernels: ${builds.map((b, i) => `${b.name} ${kernels[i]}`).join(', ')}`);
  const widths = [24, 9, ...builds.slice(1).flatMap((b) => [Math.max(9, b.name.length), 14]), 7];
  const row = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' ');
  console.log(row(['case', 'native', ...builds.slice(1).flatMap((b) => [b.name, 'ratio']), 'target']));
  for (const c of Object.keys(got[0])) {
    const base = got[0][c];
    const cells = [c, fmt(best(base))];
    for (let i = 1; i < builds.length; i++) {
      const runs = got[i][c];
      if (!runs) { cells.push('-', '-'); continue; }
      cells.push(fmt(best(runs)),
        `${(best(runs) / best(base)).toFixed(2)}x (${(med(runs) / med(base)).toFixed(2)})`);
    }
    cells.push(targets[c] ? `${targets[c]}x` : '-');
    console.log(row(cells));
  }

  // The peer rows (cwpack:<case>, mpack:<case>; built when their sources are
  // there): how much faster scratchpack is than each peer on each build, so
  // the WASM ratios above can be read against what the same C costs them.
  const peerCases = Object.keys(got[0]).filter((c) => c.includes(':'));
  if (peerCases.length === 0) {
    console.log(cases ? `peer rows: none among the cases matching '${cases}'`
      : 'peer rows skipped: no CWPack/mpack sources (cmake/peers.cmake; set SP_PEERS)');
    return;
  }
  const pw = [24, ...builds.map((b) => Math.max(9, b.name.length))];
  const prow = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(pw[i]) : String(c).padStart(pw[i]))).join(' ');
  console.log('\nscratchpack over each peer in the same build (peer time / scratchpack time, by bests; above 1: scratchpack faster)');
  console.log(prow(['case', ...builds.map((b) => b.name)]));
  for (const c of peerCases) {
    const ours = c.slice(c.indexOf(':') + 1);
    const cells = [c];
    for (let i = 0; i < builds.length; i++) {
      const peer = got[i][c], sp = got[i][ours];
      cells.push(peer && sp ? `${(best(peer) / best(sp)).toFixed(2)}x` : '-');
    }
    console.log(prow(cells));
  }
}
