// flows/fanout.js -- the fan-out of 003_*.txt on real pthreads: one thread
// rents, several return what they did not rent. The same workload on the
// shared pool (a slot per thread, then partitions behind locks), the
// lock-free pool (one bounded queue) and no pool (malloc and free), side by
// side, with a conclusion computed from what was measured. Without threads
// the page plays a run recorded from the pthread build (web/record-fanout.mjs).
// Owns: the code lines, the workload, the steps built from the samples the
// module takes at the end of each phase, the summary. Must not touch: the
// DOM or the module.

import { fmt } from '../model.js';

// Waves the size of the pools' places, so that what is measured is the
// returns and not arrays dropped for want of room; and big, so that each
// returning thread's share of a wave takes tens of microseconds: a browser
// reads its clock in steps of 5 µs. (.NET's partitions hold 32 arrays each;
// these hold 1,024, for the waves to fit.)
const PARTS = 2, PER_PART = 1024;
const WAVE = PARTS * PER_PART, NWAVES = 5;
// Each pool runs RUNS times, each run a new pool and new threads, the pools
// taking turns (shared, lock-free, none, shared, ...) so that a change in the
// machine's load falls on all three alike. A run's figure is its time per
// return over waves 2 on (wave 1 fills the pool); a pool's is the median of
// its runs, drawn with their range. A verdict needs the two ranges apart: if
// the pools did not differ, all five runs of one landing below all five of
// the other would happen by chance 2 times in 252.
export const RUNS = 5;
const SQUARES = 64;                 // the places drawn, each standing for cap / 64
export const WORKLOAD = { waves: new Array(NWAVES).fill(WAVE), parts: PARTS, perPart: PER_PART };
export const POOLS = [
  { id: 'shared', kind: 0, name: 'shared pool' },
  { id: 'lockfree', kind: 1, name: 'lock-free pool' },
  { id: 'nopool', kind: 2, name: 'no pool' },
];
const DETAILED = 2;                 // waves played one by one; the rest in one step
let kept = null;                    // the last live run: { runner, consumers, data }

const L = { BROADCASTER: 0, RENT: 1, HAND: 2, CONSUMER: 3, RETURN: 4, PARTITION: 5, DROP: 6, FIX: 7, QUEUE: 8, NOPOOL: 9 };

export default {
  id: 'fanout',
  title: 'Pool fan-out: shared, lock-free, none',
  short: 'Pool fan-out',
  source: '003_*.txt: one broadcaster rents 4 KiB buffers, the connections\' threads return them',
  framesTitle: 'Threads',
  legend: ['held', 'place', 'slot-full', 'slot-empty'],
  lines: [
    { code: '// one dedicated broadcaster thread: the only one that rents', c: 'producer()' },
    { code: 'var buf = ArrayPool<byte>.Shared.Rent(4096);     // slot, then partitions (a lock each), then new', c: 'sp_pool_rent(pool, 4096, &cap)' },
    { code: 'connection.Enqueue(buf);                          // to another thread', c: 'fan.bufs[k] (dealt round-robin)' },
    { code: '// each connection\'s consume loop, on its own thread', c: 'consumer(c)' },
    { code: 'ArrayPool<byte>.Shared.Return(buf);               // into this thread\'s slot, no lock', c: 'sp_pool_return(pool, buf, cap)' },
    { code: '    slot already full: the older array goes to a partition: Monitor.Enter(partition)', c: 'push(): sp_lock_take(&q->lock)' },
    { code: '    every partition full: the array is dropped', c: 'sp_free(a, capacity)  (drops)' },
    { code: '// the fix: CrossThreadBufferPool over a lock-free queue', c: 'sp_lockfree_pool_create(4096, 2048)' },
    { code: '_pool.TryDequeue(out var b) ? b : new byte[4096];   _pool.Enqueue(buf);', c: 'dequeue() / enqueue(): C11 atomics only' },
    { code: '// no pool: new byte[4096] for every message, the GC takes it back', c: 'sp_malloc(4096) / sp_free(buf, 4096)' },
  ],
  cases: [
    { id: 'shared', label: 'Shared pool (ArrayPool<byte>.Shared)', short: 'Shared pool', pool: 0 },
    { id: 'lockfree', label: 'Lock-free pool (the fix)', short: 'Lock-free', pool: 1 },
    { id: 'nopool', label: 'No pool (malloc and free)', short: 'No pool', pool: 2 },
  ],
  inputs: [
    { name: 'consumers', label: 'Returning threads', type: 'select', default: '3', threadsOnly: true,
      options: [['1', '1'], ['2', '2'], ['3', '3']] },
  ],

  /** Runs the same workload on the three pools (or loads the recorded
   *  run without threads, or when the page was opened with ?recorded);
   *  progress(text) tells how far it is. */
  async run(runner, caseIndex, input, progress = () => {}) {
    const native = runner.recordedNative ? await runner.recordedNative() : null;
    if (!runner.threaded || runner.recordedOnly) return { ...await runner.recordedFanout(), native };
    const consumers = Math.min(3, Math.max(1, Number(input.consumers) || 3));
    // The case only picks which pool to follow: every case shows the same
    // three runs, so switching case keeps them (a new thread count runs anew).
    if (kept && kept.runner === runner && kept.consumers === consumers) return kept.data;
    const config = { consumers, ...WORKLOAD, queue: WAVE, runs: RUNS };
    const runs = Object.fromEntries(POOLS.map((p) => [p.id, []]));
    for (let r = 0; r < RUNS; r++) {
      for (const p of POOLS) {
        runs[p.id].push(await runner.fanout({ kind: p.kind, consumers, waves: config.waves, parts: PARTS, perPart: PER_PART },
          (s) => progress(`run ${r + 1} of ${RUNS}, ${p.name}: wave ${s.wave + 1} of ${NWAVES}`)));
      }
    }
    const data = { config, runs, recorded: null, native };
    kept = { runner, consumers, data };
    return data;
  },

  steps(data, walk, caseIndex) {
    const { config } = data;
    const pool = POOLS[this.cases[caseIndex].pool];
    const samples = data.runs[pool.id][0];      // run 1 is played wave by wave
    const board = summary(data);
    const view = (s) => poolView(config, s, pool);
    const consumers = Array.from({ length: config.consumers }, (_, i) => `connection thread ${i + 1}`);
    const frames = (who) => (who === 'producer' ? ['broadcaster thread'] : who === 'done'
      ? [`all done: the broadcaster and ${consumers.length} connection thread${consumers.length > 1 ? 's' : ''}`] : consumers);
    const cap = places(config, pool);
    const emit = (step) => walk.emit(step);
    emit({ line: L.BROADCASTER, frames: frames('producer'), pool: view(null), name: 'setup',
      why: `One broadcaster thread rents 4 KiB buffers, ${fmt(WAVE)} per wave, and deals them to ${config.consumers} connection thread${config.consumers > 1 ? 's' : ''}, which return them: ${fmt(config.waves.length)} waves, ${fmt(sum(config.waves))} returns, in each of ${fmt(runsOf(data))} runs (a new pool and new threads each); run 1 plays here. `
        + (pool.kind === 0 ? `The shared pool: a slot per thread, then ${config.parts} partitions of ${fmt(config.perPart)} places, each behind a lock.`
          : pool.kind === 1 ? `The lock-free pool: one queue of ${fmt(cap)} places, no slot, no lock.`
            : 'No pool: every rent is a new array, every return frees it.') });
    let prev = zero(config.consumers);
    for (const s of samples.filter((x) => x.wave < DETAILED)) {
      const d = delta(s, prev);
      if (s.phase === 1) {
        emit({ line: pool.kind === 0 ? L.RENT : pool.kind === 1 ? L.QUEUE : L.NOPOOL, frames: frames('producer'), pool: view(s), name: `rent-${s.wave + 1}`,
          why: `Wave ${s.wave + 1}: the broadcaster rents ${fmt(d.rents)} buffers: ${pool.kind === 2 ? `${fmt(d.fresh)} new arrays.`
            : `${fmt(d.partitionHits)} from the ${pool.kind === 0 ? 'partitions' : 'queue'}, ${fmt(d.fresh)} new arrays.${pool.kind === 0 ? ' Its own slot never helps: this thread never returns.' : ''}`}` });
      } else {
        emit({ line: pool.kind === 0 ? L.PARTITION : pool.kind === 1 ? L.QUEUE : L.NOPOOL, frames: frames('consumers'), pool: view(s),
          name: `return-${s.wave + 1}`, verdict: pool.kind === 0 ? d.returns > 0 : undefined,
          why: returnText(pool, config, d, s, prev),
          state: timing(d, s) });
        if (d.drops > 0 && pool.kind !== 2) emit({ line: pool.kind === 0 ? L.DROP : L.QUEUE, frames: frames('consumers'), pool: view(s), name: `drop-${s.wave + 1}`,
          why: `${fmt(d.drops)} arrays were dropped: all ${fmt(cap)} places were full. The next wave must allocate them again.` });
      }
      prev = s;
    }
    const last = samples[samples.length - 1];
    const mine = board.rows.find((r) => r.id === pool.id);
    if (last && last.wave >= DETAILED) {
      const d = delta(last, prev);
      emit({ line: pool.kind === 0 ? L.PARTITION : pool.kind === 1 ? L.QUEUE : L.NOPOOL, frames: frames('consumers'), pool: view(last), name: 'steady',
        why: `Waves ${DETAILED + 1}–${last.wave + 1}: ${fmt(d.returns)} more returns, ${fmt(d.fresh)} new arrays, ${fmt(d.drops)} ${pool.kind === 2 ? 'frees' : 'drops'}${pool.kind === 0 ? `, ${fmt(d.lockWaits)} lock waits` : ''}. ${steadyText(pool, d)}`,
        state: timing(d, last) });
    }
    emit({ line: pool.kind === 0 ? L.RETURN : pool.kind === 1 ? L.FIX : L.NOPOOL, frames: frames('done'), pool: view(last), name: 'end',
      why: `The ${pool.name} over ${fmt(mine.runs)} runs: ${fmt(mine.returns)} cross-thread returns, ${nsText(mine.ns)} each inside the returning threads (the median of the runs, waves 2–${fmt(config.waves.length)} of each; ${spread(mine)} ns), ${fmt(mine.fresh)} new arrays, ${pool.kind === 2 ? `${fmt(mine.returns)} frees` : `${fmt(mine.drops)} drops, ${fmt(mine.lockWaits)} lock waits`}; waking the threads (${fmt(mine.wakeUs)} µs a wave) is not in that time.` });
    emit({ line: pool.kind === 0 ? L.RETURN : pool.kind === 1 ? L.FIX : L.NOPOOL, frames: frames('done'), pool: view(last), name: 'summary',
      why: board.brief });
    const skip = pool.kind === 0 ? [L.FIX, L.QUEUE, L.NOPOOL] : pool.kind === 1 ? [L.RETURN, L.PARTITION, L.DROP, L.NOPOOL]
      : [L.RETURN, L.PARTITION, L.DROP, L.FIX, L.QUEUE];
    return { skip, recorded: data.recorded || null, board: { ...board, current: pool.id, native: data.native || null },
      note: sourceNote(data) };
  },
};

// Where the figures come from, and no more: a live run says how it was
// measured; a recorded one says so first; made-up figures (?recorded=longest,
// recorded.measured false) say what they are and claim no measurement.
function sourceNote(data) {
  const rec = data.recorded;
  if (rec && rec.measured === false) return `${rec.label}: ${rec.what}. No pool ran: the counters and times are made up.`;
  return `${rec ? `Recorded: ${rec.what}. ` : ''}Counters are the pools' own (sp_pool_stats), sampled at the end of each phase while the other threads wait; the time per return is read inside each returning thread around its returns only. Each pool ran ${fmt(runsOf(data))} times, the pools taking turns; the steps play run 1.`;
}

const sum = (a) => a.reduce((n, x) => n + x, 0);
const runsOf = (data) => Math.max(...POOLS.map((p) => data.runs[p.id]?.length || 0));

function places(config, pool) {
  return pool.kind === 0 ? config.parts * config.perPart : pool.kind === 1 ? config.queue : 0;
}

function zero(n) {
  return { tUs: 0, rents: 0, returns: 0, slotHits: 0, partitionHits: 0, lockWaits: 0, fresh: 0, drops: 0,
    cached: 0, returnNs: 0, phaseUs: 0, returned: new Array(n).fill(0) };
}

function delta(s, p) {
  const d = {};
  for (const k of ['rents', 'returns', 'slotHits', 'partitionHits', 'lockWaits', 'fresh', 'drops', 'returnNs']) d[k] = s[k] - p[k];
  return d;
}

function nsText(ns) {
  return ns === null ? '—' : `${ns < 10 ? ns.toFixed(1) : fmt(ns)} ns`;
}

function timing(d, s) {
  const per = d.returns > 0 ? d.returnNs / d.returns : 0;
  return `returns: ${nsText(per)} each inside the threads; this wave took ${fmt(s.phaseUs)} µs from the broadcaster's signal, waking the threads included`;
}

// What the steady waves' counters say of the pool: a whole wave kept only
// when nothing was allocated anew or dropped, else what was.
function steadyText(pool, d) {
  if (pool.kind === 2) return 'Every message still costs an allocation and a free.';
  if (d.fresh === 0 && d.drops === 0) return 'The pool now holds a whole wave: every rent is a hit.';
  const missed = [d.fresh > 0 ? `${fmt(d.fresh)} rent${d.fresh === 1 ? '' : 's'} found the pool empty` : '',
    d.drops > 0 ? `${fmt(d.drops)} return${d.drops === 1 ? '' : 's'} found it full` : ''].filter(Boolean);
  return `The pool did not keep a whole wave: ${missed.join(' and ')}.`;
}

function returnText(pool, config, d, s, prev) {
  const n = config.consumers, who = `${n} thread${n > 1 ? 's' : ''}`;
  if (pool.kind === 2) return `${who} free ${fmt(d.returns)} buffers: nothing is kept for the next wave.`;
  if (pool.kind === 1) return `${who} return ${fmt(d.returns)} buffers into the queue with atomics only: no lock to wait for. ${fmt(s.cached)} of ${fmt(config.queue)} places hold an array.`;
  const first = prev.returned.some((r) => r === 0);
  return `${who} return ${fmt(d.returns)} buffers they did not rent. ${first ? 'A thread\'s first return fills its own slot without a lock; every later one' : 'Every slot is already full, so every return'} pushes the older array into a partition under its lock: ${fmt(d.lockWaits)} lock waits in this wave.`;
}

// Where the pool's arrays are: a returning thread's slot is full from its
// first return on (these threads never rent); the broadcaster's stays
// empty; the other arrays the pool holds are in the partitions (or queue).
function poolView(config, s, pool) {
  const returned = s ? s.returned : new Array(config.consumers).fill(0);
  const shared = pool.kind === 0;
  const slots = shared ? [{ label: 'broadcaster', full: false },
    ...returned.map((r, i) => ({ label: `thread ${i + 1}`, full: r > 0 }))] : [];
  const slotsFull = slots.filter((x) => x.full).length;
  const cap = places(config, pool);
  const held = s ? Math.min(cap, Math.max(0, s.cached - slotsFull)) : 0;
  return { kind: POOLS[pool.kind].id, slots, cap, held, squares: cap ? SQUARES : 0, perSquare: cap / SQUARES,
    inFlight: s ? s.inFlight : 0,
    store: shared ? `partitions: ${config.parts} × ${fmt(config.perPart)} places, a lock each`
      : pool.kind === 1 ? `queue: ${fmt(cap)} places, no lock` : 'no pool: nothing is kept',
    counters: counters(s || zero(config.consumers), pool) };
}

function counters(s, pool) {
  return [['rents', s.rents], ['returns', s.returns], ['slot hits', s.slotHits],
    [pool.kind === 0 ? 'partition hits' : 'queue hits', s.partitionHits], ['new arrays', s.fresh],
    [pool.kind === 2 ? 'frees' : 'drops', s.drops], ['lock waits', pool.kind === 2 ? null : s.lockWaits]];
}

/**
 * The side-by-side summary of the runs: per pool, ns per return (the median
 * of its runs, each over waves 2 on, read inside the returning threads) with
 * the runs' range, and lock waits, drops and new arrays summed over the runs;
 * bars scaled to the largest of each; and a conclusion written from these
 * numbers (exported for the tests).
 */
export function summary(data) {
  const rows = POOLS.filter((p) => data.runs[p.id] && data.runs[p.id].length).map((p) => {
    const runs = data.runs[p.id];
    const ns = runs.map(runNs).filter((v) => v !== null);
    const total = (k) => sum(runs.map((ss) => ss[ss.length - 1][k]));
    return { id: p.id, name: p.name, returns: total('returns'), ns: median(ns), nsLo: ns.length ? Math.min(...ns) : null,
      nsHi: ns.length ? Math.max(...ns) : null, runs: ns.length,
      wakeUs: median(runs.flatMap((ss) => perWave(ss).slice(1).map((w) => w.phaseUs))),
      lockWaits: p.kind === 2 ? null : total('lockWaits'), drops: p.kind === 2 ? null : total('drops'), fresh: total('fresh') };
  });
  const n = rows.length ? rows[0].runs : 0;
  const metrics = [['ns', `time per return, ns (inside the returning threads): the median of ${n} runs, the line their range`],
    ['lockWaits', 'lock waits'], ['drops', 'arrays dropped (pool full)'], ['fresh', 'new arrays allocated']];
  // Times against the slowest run of any pool, from zero, so that a 10%
  // difference draws as a 10% difference; counts against the returns, so
  // that a handful of lock waits in 51,200 returns draws as the sliver it is.
  const bars = metrics.map(([key, label]) => {
    const max = key === 'ns' ? Math.max(1e-9, ...rows.map((r) => r.nsHi ?? 0)) : null;
    const of = (v) => Math.min(1, v / (max ?? 1));
    return { key, label: key === 'ns' ? label : `${label}, all runs (bar: share of the returns)`, items: rows.map((r) => ({ id: r.id, name: r.name, value: r[key],
      text: r[key] === null ? (key === 'lockWaits' ? 'not counted (malloc\'s own lock)' : key === 'drops' ? 'every return frees' : '—')
        : key === 'ns' ? `${nsText(r.ns)} (${spread(r)})` : fmt(r[key]),
      width: r[key] === null ? 0 : key === 'ns' ? of(r.ns) : Math.min(1, r[key] / Math.max(1, r.returns)),
      range: key === 'ns' && r.ns !== null ? [of(r.nsLo), of(r.nsHi)] : null })) };
  });
  const by = Object.fromEntries(rows.map((r) => [r.id, r]));
  return { rows, bars, ...conclude(by, data.recorded) };
}

// One run's time per return: its waves 2 on, inside the returning threads
// (wave 1 fills the pool: warm-up); null when it has no such wave.
function runNs(samples) {
  const waves = perWave(samples).slice(1);
  const returns = sum(waves.map((w) => w.returns));
  return returns > 0 ? sum(waves.map((w) => w.ns * w.returns)) / returns : null;
}

// Per wave: ns per return inside the threads, and the wave's time as the
// broadcaster saw it (wake-ups included).
function perWave(samples) {
  const out = [];
  let prev = zero(0);
  for (const s of samples) {
    if (s.phase !== 2) continue;
    const n = s.returns - prev.returns;
    if (n > 0) out.push({ ns: (s.returnNs - prev.returnNs) / n, returns: n, phaseUs: s.phaseUs });
    prev = s;
  }
  return out;
}

// The runs' range: "5 runs: 35–41".
function spread(r) {
  const f = (v) => (v < 10 ? v.toFixed(1) : fmt(v));
  return r.nsLo === null ? '—' : `${fmt(r.runs)} runs: ${f(r.nsLo)}–${f(r.nsHi)}`;
}

function median(xs) {
  if (!xs.length) return null;
  const a = [...xs].sort((x, y) => x - y);
  return a.length % 2 ? a[a.length >> 1] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
}

const times = (a, b) => `${(a / b).toFixed(a / b < 10 ? 1 : 0)}×`;

// Where the figures come from, as the conclusion words it: a live run is
// "here", on this machine; a recorded one names its run; made-up figures
// (?recorded=longest) say so and claim no measurement.
function origin(rec) {
  if (!rec) return { at: 'here', At: 'Here', none: 'No difference is measurable on this machine', holds: 'The fix holds here',
    noneBoth: 'No difference between the two pools is measurable on this machine' };
  if (rec.measured === false) {
    // As long as a recorded run's words or longer: the layout tests play these.
    const at = 'in these made-up figures (not a measurement: no pool ran)';
    return { at, At: 'In these made-up figures (not a measurement: no pool ran),', none: `No difference appears ${at}`,
      holds: `The fix holds ${at}`, noneBoth: `No difference between the two pools appears ${at}` };
  }
  const run = [rec.node && `Node ${rec.node}`, rec.cores && `${rec.cores} cores`].filter(Boolean).join(', ') || rec.date;
  const at = `in the recorded run${run ? ` (${run})` : ''}`;
  return { at, At: `I${at.slice(1)},`, none: `No difference was measurable ${at}`, holds: `The fix held ${at}`,
    noneBoth: `No difference between the two pools was measurable ${at}` };
}

// The conclusion, sentence by sentence, each from a comparison of the
// numbers; `rec` (the recorded run, if any) says where they come from.
function conclude({ shared: s, lockfree: l, nopool: n }, rec = null) {
  if (!s || !l || !n || s.ns === null || l.ns === null || n.ns === null) return { headline: '', conclusion: '', brief: '', rest: '' };
  const o = origin(rec), out = [];
  // A verdict only when the ranges of the runs do not overlap.
  const faster = l.nsHi < s.nsLo, slower = l.nsLo > s.nsHi;
  const both = `${nsText(l.ns)} per return on the lock-free pool (${spread(l)} ns) against ${nsText(s.ns)} on the shared pool (${spread(s)} ns)`;
  out.push(faster
    ? `A cross-thread return took ${nsText(l.ns)} on the lock-free pool against ${nsText(s.ns)} on the shared pool: ${times(s.ns, l.ns)} faster, every run of it faster than every run of the shared pool (${spread(l)} ns against ${spread(s)} ns).`
    : slower ? `${o.At} the lock-free pool (${nsText(l.ns)} per return) was not faster than the shared pool (${nsText(s.ns)}): every run of it was slower (${spread(l)} ns against ${spread(s)} ns).`
      : `${o.noneBoth}: ${both}; the runs' ranges overlap.`);
  out.push(s.lockWaits > 0
    ? `Over all runs the shared pool had to wait for a partition lock ${fmt(s.lockWaits)} times in ${fmt(s.returns)} returns; the lock-free pool has no lock.`
    : 'The shared pool never had to wait for a lock in these runs; the lock-free pool has no lock.');
  if (s.drops + l.drops > 0) out.push(`Drops: ${fmt(s.drops)} on the shared pool, ${fmt(l.drops)} on the lock-free one.`);
  out.push(n.ns > l.ns
    ? `No pool is no fix: its frees took ${nsText(n.ns)} each, ${times(n.ns, l.ns)} the lock-free pool's, and it allocated ${fmt(n.fresh)} arrays against ${fmt(l.fresh)}.`
    : `No pool freed each buffer in ${nsText(n.ns)}, no slower ${o.at}, but allocated ${fmt(n.fresh)} arrays against ${fmt(l.fresh)}: in .NET that comes back as garbage collection (the document measured no pooling ~18× slower).`);
  const headline = !faster && !slower
    ? `${o.none}: ${both}. No pool allocated ${fmt(n.fresh)} arrays against ${fmt(l.fresh)}.`
    : faster
    ? `${o.holds}: lock-free ${times(s.ns, l.ns)} faster than the shared pool per cross-thread return${s.lockWaits > 0 ? `, with no lock to wait for where the shared pool waited ${fmt(s.lockWaits)} times` : ''}; no pool allocated ${fmt(n.fresh)} arrays against ${fmt(l.fresh)}.`
    : `${o.At} the lock-free pool was not faster (${nsText(l.ns)} against ${nsText(s.ns)} per return); no pool allocated ${fmt(n.fresh)} arrays against ${fmt(l.fresh)}.`;
  // The last step says the verdict and the locks; the board under the
  // memory says the rest, so that the step's words stay short on a phone.
  return { headline, conclusion: out.join(' '), brief: out.slice(0, 2).join(' '), rest: out.slice(2).join(' ') };
}
