// runner.js -- the page's main-thread side of its worker (worker.js): asks
// for a flow's model and gets it back, with progress on the way. Owns: the
// worker and the request ids. A request overtaken by a newer one resolves
// with null (the worker only runs the newest waiting request).

/** Starts the worker; `ready` resolves with { threaded, flows } once its module loaded
 *  (flows: what the page shows of each flow, flows/index.js describe()). */
export function createRunner(url = new URL('./worker.js', import.meta.url)) {
  const worker = new Worker(url, { type: 'module' });
  const asked = new Map();          // id -> { resolve, reject, progress }
  let seq = 0, started, failed;
  const ready = new Promise((resolve, reject) => { started = resolve; failed = reject; });

  // Answers for `id` settle every older request too: those will never run.
  function settle(id, fn) {
    for (const [k, r] of asked) {
      if (k > id) continue;
      asked.delete(k);
      if (k === id) fn(r); else r.resolve(null);
    }
  }

  worker.onmessage = ({ data: m }) => {
    if (m.type === 'ready') started({ threaded: m.threaded, flows: m.flows });
    else if (m.type === 'failed') failed(new Error(m.message));
    else if (m.type === 'progress') asked.get(m.id)?.progress(m.text);
    else if (m.type === 'model') settle(m.id, (r) => r.resolve(m.model));
    else if (m.type === 'error') settle(m.id, (r) => r.reject(new Error(m.message)));
  };
  worker.onerror = (e) => failed(new Error(e.message || 'the page\'s worker did not start'));

  return {
    ready,
    /** The model of a flow's case for `input`; null when a newer request overtook it. */
    model(flowId, caseIndex, input, progress = () => {}) {
      const id = ++seq;
      return new Promise((resolve, reject) => {
        asked.set(id, { resolve, reject, progress });
        worker.postMessage({ type: 'run', id, flowId, caseIndex, input: { ...input } });
      });
    },
  };
}
