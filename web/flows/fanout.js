// flows/fanout.js -- the fan-out of 003_*.txt on real pthreads: one thread
// rents, several return what they did not rent. The shared pool (a slot per
// thread, then per-core partitions behind locks) against the lock-free pool
// (one bounded queue). Owns: the code lines, the waves, the steps built from
// the samples the module takes at the end of each phase. Must not touch: the
// DOM or the module.

import { fmt } from '../model.js';

const WAVES = [6, 12, 24, 96, 384, 1024, 1024];
const PARTS = 2, PER_PART = 8, QUEUE = 32;

const L = { BROADCASTER: 0, RENT: 1, HAND: 2, CONSUMER: 3, RETURN: 4, PARTITION: 5, DROP: 6, FIX: 7, QUEUE: 8 };

export default {
  id: 'fanout',
  title: 'Pool fan-out: shared vs lock-free',
  source: '003_*.txt: one broadcaster rents from ArrayPool<byte>.Shared, the connections\' threads return',
  needsThreads: true,
  lines: [
    { code: '// one dedicated broadcaster thread: the only one that rents', c: 'producer()' },
    { code: 'var buf = ArrayPool<byte>.Shared.Rent(4096);     // slot, then partitions (a lock each), then new', c: 'sp_pool_rent(pool, 4096, &cap)' },
    { code: 'connection.Enqueue(buf);                          // to another thread', c: 'fan.bufs[k] (dealt round-robin)' },
    { code: '// each connection\'s consume loop, on its own thread', c: 'consumer(c)' },
    { code: 'ArrayPool<byte>.Shared.Return(buf);               // into this thread\'s slot, no lock', c: 'sp_pool_return(pool, buf, cap)' },
    { code: '    slot already full: the older array goes to a partition: Monitor.Enter(partition)', c: 'push(): sp_lock_take(&q->lock)' },
    { code: '    every partition full: the array is dropped', c: 'sp_free(a, capacity)  (drops)' },
    { code: '// the fix: CrossThreadBufferPool over a lock-free queue', c: 'sp_lockfree_pool_create(4096, 32)' },
    { code: '_pool.TryDequeue(out var b) ? b : new byte[4096];   _pool.Enqueue(buf);', c: 'dequeue() / enqueue(): C11 atomics only' },
  ],
  cases: [
    { id: 'shared', label: 'Shared pool (ArrayPool<byte>.Shared)', kind: 0 },
    { id: 'lockfree', label: 'Lock-free pool (the fix)', kind: 1 },
  ],
  inputs: [
    { name: 'consumers', label: 'Returning threads', type: 'select', default: '3',
      options: [['1', '1'], ['2', '2'], ['3', '3']] },
  ],

  /** Starts the run; onUpdate gets the data so far after each sample. */
  async run(runner, caseIndex, input, onUpdate = () => {}) {
    const c = this.cases[caseIndex];
    const consumers = Math.min(3, Math.max(1, Number(input.consumers) || 3));
    const config = { kind: c.kind, consumers, waves: WAVES, parts: c.kind === 0 ? PARTS : 1,
      perPart: c.kind === 0 ? PER_PART : QUEUE };
    const samples = [];
    const data = { config, samples, live: true };
    await runner.fanout(config, (s) => { samples.push(s); onUpdate({ ...data }); });
    return { ...data, live: false };
  },

  steps(data, walk, caseIndex) {
    const { config, samples } = data;
    const shared = this.cases[caseIndex].kind === 0;
    const cap = config.parts * config.perPart;
    const view = (s) => poolView(config, s, shared, cap);
    walk.emit({ line: L.BROADCASTER, frames: ['broadcaster thread'], pool: view(null), name: 'setup',
      why: shared
        ? `One broadcaster thread rents 4 KiB buffers and deals them to ${config.consumers} connection thread${config.consumers > 1 ? 's' : ''}, which return them. The shared pool: a slot per thread, then ${config.parts} partitions of ${config.perPart} arrays, each behind a lock.`
        : `The same threads over the lock-free pool: one queue of ${cap} arrays, no slot, no lock.` });
    let prev = zero(config.consumers);
    for (const s of samples) {
      const d = delta(s, prev);
      if (s.phase === 1) {
        walk.emit({ line: shared ? L.RENT : L.QUEUE, frames: ['broadcaster thread'], pool: view(s), name: `rent-${s.wave}`,
          why: `Wave ${s.wave + 1}: the broadcaster rents ${fmt(d.rents)} buffers: ${fmt(d.partitionHits)} from the ${shared ? 'partitions' : 'queue'}, ${fmt(d.fresh)} new arrays.${shared ? ' Its own slot never helps: this thread never returns.' : ''}` });
      } else {
        const us = s.tUs - prev.tUs;
        const frames = Array.from({ length: config.consumers }, (_, i) => `connection thread ${i + 1}`);
        walk.emit({ line: shared ? L.PARTITION : L.QUEUE, frames, pool: view(s), name: `return-${s.wave}`, verdict: shared ? d.returns > 0 : undefined,
          why: shared
            ? `${config.consumers} thread${config.consumers > 1 ? 's' : ''} return ${fmt(d.returns)} buffers they did not rent. ${prev.returned.some((r) => r === 0) ? 'A thread\'s first return fills its own slot without a lock; every later one' : 'Every slot is already full, so every return'} pushes the older array into a partition under its lock: ${fmt(d.lockWaits)} lock waits in this wave, ${fmt(s.lockWaits)} in all.`
            : `${config.consumers} thread${config.consumers > 1 ? 's' : ''} return ${fmt(d.returns)} buffers into the queue with atomics only: no lock to wait for.`,
          state: `returns took ${fmt(us)} µs (${(us / Math.max(1, d.returns)).toFixed(2)} µs per return, with the threads' wake-up)` });
        if (d.drops > 0) walk.emit({ line: shared ? L.DROP : L.QUEUE, frames, pool: view(s), name: `drop-${s.wave}`,
          why: `${fmt(d.drops)} arrays were dropped: all ${cap} ${shared ? 'partition places were' : 'queue cells were'} full. The next wave must allocate them again.` });
      }
      prev = s;
    }
    const last = samples[samples.length - 1];
    if (last && !data.live) walk.emit({ line: shared ? L.RETURN : L.FIX, frames: [], pool: view(last), name: 'end',
      why: `Done: ${fmt(last.returns)} cross-thread returns.`,
      out: `${shared ? 'shared' : 'lock-free'} pool: ${fmt(last.lockWaits)} lock waits, ${fmt(last.fresh)} fresh arrays, ${fmt(last.drops)} drops, ${fmt(last.partitionHits)} ${shared ? 'partition' : 'queue'} hits, ${fmt(last.slotHits)} slot hits` });
    return { skip: shared ? [L.FIX, L.QUEUE] : [L.RETURN, L.PARTITION, L.DROP],
      note: shared ? 'Counters are the pool\'s own (sp_pool_stats); samples are taken at the end of each phase, while the other threads wait.'
        : 'The lock-free pool counts a dequeue as a partition hit; it has no slots and no locks, so those counters stay 0.' };
  },
};

function zero(n) {
  return { tUs: 0, rents: 0, returns: 0, slotHits: 0, partitionHits: 0, lockWaits: 0, fresh: 0, drops: 0,
    cached: 0, returned: new Array(n).fill(0) };
}

function delta(s, p) {
  const d = {};
  for (const k of ['rents', 'returns', 'slotHits', 'partitionHits', 'lockWaits', 'fresh', 'drops']) d[k] = s[k] - p[k];
  return d;
}

// Where the pool's arrays are: a consumer's slot is full from its first
// return on (a return always fills the returning thread's slot, and these
// threads never rent); the broadcaster's stays empty. The rest of the cached
// arrays are in the partitions (or the queue).
function poolView(config, s, shared, cap) {
  const returned = s ? s.returned : new Array(config.consumers).fill(0);
  const slots = shared ? [{ label: 'broadcaster', full: false },
    ...returned.map((r, i) => ({ label: `thread ${i + 1}`, full: r > 0 }))] : [];
  const slotsFull = slots.filter((x) => x.full).length;
  const held = s ? Math.max(0, s.cached - slotsFull) : 0;
  return { shared, slots, cap, held: Math.min(cap, held), parts: config.parts, perPart: config.perPart,
    inFlight: s ? s.inFlight : 0,
    counters: s ? [['rents', s.rents], ['returns', s.returns], ['slot hits', s.slotHits],
      [shared ? 'partition hits' : 'queue hits', s.partitionHits], ['fresh arrays', s.fresh], ['drops', s.drops],
      ['lock waits', s.lockWaits]] : [] };
}
