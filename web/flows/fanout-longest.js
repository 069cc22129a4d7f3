// flows/fanout-longest.js -- a fan-out made up for the layout tests
// (?recorded=longest): no measurement, but figures chosen so that every
// sentence the fan-out writes takes its longest form -- no verdict (so both
// pools' figures and ranges are spelled out twice), lock waits and drops on
// the shared and lock-free pools, no pool "no slower" (its long sentence),
// every number four or five digits wide. A phone that shows this without
// overflowing shows any real run. Owns: those made-up samples. Must not
// touch: how they are read (fanout.js) or drawn.

import { RUNS, WORKLOAD } from './fanout.js';

// ns per return of each run, per pool: the ranges overlap (no verdict) and
// no pool is the fastest (the longer of its two sentences).
export const LONGEST = {
  shared: [9876, 9123, 9999, 9555, 9321],
  lockfree: [9888, 9111, 9998, 9444, 9333],
  nopool: [9001, 9002, 9003, 9004, 9005],
  lockWaits: 2047, drops: 1234, wakeUs: 99999,
};

/** The made-up run data, shaped as fanout.js run() returns it. */
export function longestFanout(o = LONGEST) {
  const config = { consumers: 3, ...WORKLOAD, queue: WORKLOAD.parts * WORKLOAD.perPart, runs: RUNS };
  const runs = {};
  for (const id of ['shared', 'lockfree', 'nopool']) runs[id] = o[id].slice(0, RUNS).map((ns) => madeUpRun(config, ns, o, id !== 'nopool'));
  return { config, runs, native: null,
    recorded: { label: 'Not a measurement', measured: false, what: 'figures made up so that every sentence takes its longest form, for the layout tests (?recorded=longest)' } };
}

// One run: per wave a rent sample and a return sample, cumulative as the
// module's are; wave 1 slower (warm-up), the others at `ns`. Without a pool
// every rent is new and every return a free (counted as a drop).
function madeUpRun(config, ns, o, pooled) {
  const out = [];
  const n = config.consumers;
  const c = { rents: 0, returns: 0, returnNs: 0, lockWaits: 0, drops: 0, fresh: 0 };
  const sample = (phase, wave, size) => ({ phase, wave, tUs: 0, inFlight: phase === 1 ? size : 0, slotHits: 0,
    partitionHits: pooled && wave > 0 ? size - o.drops : 0, cached: pooled && phase === 2 ? size - o.drops : 0,
    phaseUs: o.wakeUs, returned: new Array(n).fill(Math.floor(c.returns / n)), ...c });
  config.waves.forEach((size, wave) => {
    c.rents += size;
    c.fresh += pooled && wave > 0 ? o.drops : size;
    out.push(sample(1, wave, size));
    c.returns += size;
    c.returnNs += size * (wave === 0 ? ns + 999 : ns);
    c.lockWaits += pooled ? o.lockWaits : 0;
    c.drops += pooled ? o.drops : size;
    out.push(sample(2, wave, size));
  });
  return out;
}
