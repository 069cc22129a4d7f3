// worker.js -- the page's worker: loads the page's module (trace.js), runs
// a flow and builds its model (flows/, model.js), so that no module call
// and no trace replay ever runs on the page's main thread (the 64 KiB
// writer case, the 2,000-call measurements and the fan-out's polling are
// all here). Owns: its side of the protocol with runner.js. A run asked
// for while another runs waits, and only the newest one waiting is run.
//   in:  { type: 'run', id, flowId, caseIndex, input }
//   out: { type: 'ready', threaded, flows: describe() } | { type: 'failed', message }
//        { type: 'progress', id, text } | { type: 'model', id, model } | { type: 'error', id, message }

import { loadFlows, recordedDotnet, recordedFanout, recordedNative } from './trace.js';
import { buildModel, describe, flowById } from './flows/index.js';

let runner = null, waiting = null, running = false;
// worker.js?recorded (the page's ?recorded parameter): the fan-out plays the
// recorded run even where it could run live, so that what it shows does not
// depend on this machine (the layout tests use it); ?recorded=longest plays
// made-up figures that give every sentence its longest form (loaded only then).
const params = new URL(self.location.href).searchParams;
const recordedOnly = params.has('recorded');
const longest = () => import('./flows/fanout-longest.js').then((m) => m.longestFanout());
// The recorded files are read once per load, however often the fan-out is opened.
const once = (load) => { let p = null; return () => (p ??= load()); };

const loaded = loadFlows().then((r) => {
  runner = Object.assign(r, { recordedFanout: once(params.get('recorded') === 'longest' ? longest : recordedFanout), recordedNative: once(recordedNative),
    recordedDotnet: once(recordedDotnet), recordedOnly });
  postMessage({ type: 'ready', threaded: r.threaded, flows: describe() });
}, (e) => postMessage({ type: 'failed', message: e.message }));

self.onmessage = (ev) => {
  if (ev.data.type !== 'run') return;
  waiting = ev.data;
  pump();
};

async function pump() {
  if (running) return;
  running = true;
  await loaded;
  while (waiting) {
    const req = waiting;
    waiting = null;
    try {
      if (!runner) throw new Error('the WebAssembly module did not load');
      const flow = flowById(req.flowId);
      const data = await flow.run(runner, req.caseIndex, req.input,
        (text) => postMessage({ type: 'progress', id: req.id, text }));
      postMessage({ type: 'model', id: req.id, model: buildModel(flow, req.caseIndex, data) });
    } catch (e) {
      postMessage({ type: 'error', id: req.id, message: e.message });
    }
    await new Promise((r) => setTimeout(r, 0));       // newer requests land in `waiting`
  }
  running = false;
}
