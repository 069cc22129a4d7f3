// player.js -- plays a flow: the clock (one requestAnimationFrame loop with a
// generation counter, flush() for tests), the controls (play/pause, step,
// scrubber, speed, case switcher, inputs), the keyboard (←, →, space, Home,
// End) and the URL hash that deep-links a flow, case, inputs and step.
// Owns: view state and when to re-run the module. Must not touch: how steps
// are made (flows/, model.js) or drawn (render.js).

import { FLOWS, buildModel, flowById } from './flows/index.js';
import { atEnd, seek, step, stepNamed } from './model.js';
import { render } from './render.js';

const BASE_MS = 1200;               // one step per 1.2 s at 1×

/** One frame clock: while playing, tick() runs every `interval` ms. */
export function createClock({ raf = (f) => requestAnimationFrame(f), now = () => performance.now() } = {}) {
  let gen = 0, playing = false, last = 0, interval = BASE_MS, tick = () => {};
  function frame(g) {
    if (g !== gen || !playing) return;           // a stale loop from before a pause: done
    const t = now();
    if (t - last >= interval) { last = t; tick(); }
    if (playing && g === gen) raf(() => frame(g));
  }
  return {
    get playing() { return playing; },
    play(onTick, ms) {
      tick = onTick; interval = ms; playing = true; last = now();
      const g = ++gen;
      raf(() => frame(g));
    },
    pause() { playing = false; gen++; },
    setInterval(ms) { interval = ms; },
    /** Runs the next tick now, as if its time had come (tests). */
    flush() { if (playing) { last = now(); tick(); } },
  };
}

/** location.hash <-> view state (pure). */
export function parseHash(hash) {
  const p = new URLSearchParams(String(hash).replace(/^#/, ''));
  const flow = flowById(p.get('flow'));
  const ci = flow.cases.findIndex((c) => c.id === p.get('case'));
  const input = {};
  for (const i of flow.inputs) if (p.has(i.name)) input[i.name] = p.get(i.name);
  return { flowId: flow.id, caseIndex: Math.max(0, ci), input, step: p.get('step') };
}

export function formatHash({ flowId, caseIndex, input, step: n }) {
  const flow = flowById(flowId);
  const p = new URLSearchParams({ flow: flow.id, case: flow.cases[caseIndex].id });
  for (const i of flow.inputs) if (input[i.name] !== undefined) p.set(i.name, input[i.name]);
  p.set('step', String(n + 1));
  return `#${p}`;
}

/** Default inputs of a flow's case (text inputs that belong to a case take its value). */
function defaults(flow, caseIndex) {
  const out = {};
  for (const i of flow.inputs) out[i.name] = i.perCase ? flow.cases[caseIndex][i.name] : i.default;
  return out;
}

export function createPlayer({ ui, runner, notice = '', reducedMotion = false }) {
  const clock = createClock();
  let flow = FLOWS[0], caseIndex = 0, input = defaults(flow, 0);
  let model = null, speed = 1, runGen = 0, busy = Promise.resolve(), pendingStep = null;

  function show() {
    if (!model) return;
    render(ui, flow, model, flowNotice());
    ui.scrub.max = String(Math.max(0, model.steps.length - 1));
    ui.scrub.value = String(model.cursor);
    ui.scrub.setAttribute('aria-valuetext', ui.position.textContent);
    ui.play.textContent = clock.playing ? 'Pause' : 'Play';
    ui.play.setAttribute('aria-pressed', String(clock.playing));
    history.replaceState(null, '', formatHash({ flowId: flow.id, caseIndex, input, step: model.cursor }));
  }

  function flowNotice() {
    return flow.needsThreads && !runner.threaded ? notice : '';
  }

  function go(next) {
    model = next;
    if (clock.playing && atEnd(model)) clock.pause();
    show();
  }

  // Runs the module for the current flow, case and input; stale runs (the
  // reader changed something meanwhile) are dropped by the run generation.
  function rerun() {
    const g = ++runGen;
    clock.pause();
    document.body.dataset.ready = 'false';
    const want = pendingStep;
    pendingStep = null;
    busy = busy.then(async () => {
      if (g !== runGen) return;
      if (flow.needsThreads && !runner.threaded) {
        model = { flowId: flow.id, caseIndex, steps: [], cursor: 0, skip: [] };
        render(ui, flow, model, flowNotice());
        ui.scrub.max = ui.scrub.value = '0';
        document.body.dataset.ready = 'true';
        return;
      }
      // Live data (the fan-out): show each sample as it lands.
      const live = (d) => { if (g === runGen) { model = buildModel(flow, caseIndex, d); model = seek(model, model.steps.length - 1); show(); } };
      try {
        const data = await flow.run(runner, caseIndex, input, live);
        if (g !== runGen) return;
        model = buildModel(flow, caseIndex, data);
        const named = want !== null && !/^\d+$/.test(want) ? stepNamed(model, want) : -1;
        const fallback = data.samples ? model.steps.length - 1 : 0;   // a live run stays on its last sample
        model = seek(model, named >= 0 ? named : want !== null && /^\d+$/.test(want) ? Number(want) - 1 : fallback);
        show();
      } catch (e) {
        model = { flowId: flow.id, caseIndex, steps: [], cursor: 0, skip: [] };
        render(ui, flow, model, `The module could not run this flow: ${e.message}`);
      }
      document.body.dataset.ready = 'true';
    });
    return busy;
  }

  function selectFlow(id, ci = 0, inp = null) {
    flow = flowById(id);
    caseIndex = ci;
    input = { ...defaults(flow, ci), ...(inp || {}) };
    buildControls();
    return rerun();
  }

  function selectCase(ci) {
    caseIndex = ci;
    for (const i of flow.inputs) if (i.perCase) input[i.name] = flow.cases[ci][i.name];
    buildControls();
    return rerun();
  }

  function togglePlay() {
    if (clock.playing) { clock.pause(); show(); return; }
    if (!model || !model.steps.length) return;
    if (atEnd(model)) model = seek(model, 0);
    clock.play(() => go(step(model, 1)), BASE_MS / speed);
    show();
  }

  // ---- controls ------------------------------------------------------------
  function buildControls() {
    for (const b of ui.tabs.querySelectorAll('[role=tab]')) {
      const on = b.dataset.flow === flow.id;
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
    }
    ui.cases.replaceChildren(...flow.cases.map((c, i) => {
      const id = `case-${c.id}`;
      const r = Object.assign(document.createElement('input'), { type: 'radio', name: 'case', id, value: String(i), checked: i === caseIndex });
      r.addEventListener('change', () => selectCase(i));
      const l = Object.assign(document.createElement('label'), { htmlFor: id, textContent: c.label });
      const span = document.createElement('span');
      span.append(r, l);
      return span;
    }));
    ui.inputs.replaceChildren(...flow.inputs.map((i) => {
      const id = `input-${i.name}`;
      const l = Object.assign(document.createElement('label'), { htmlFor: id, textContent: i.label });
      let f;
      if (i.type === 'select') {
        f = document.createElement('select');
        for (const [v, t] of i.options) f.append(new Option(t, v, false, String(input[i.name]) === v));
        f.addEventListener('change', () => { input[i.name] = f.value; rerun(); });
      } else {
        f = Object.assign(document.createElement('input'), { type: i.type === 'number' ? 'number' : 'text',
          value: input[i.name] ?? '', maxLength: 200 });
        f.addEventListener('change', () => { input[i.name] = f.value; rerun(); });
      }
      f.id = id;
      f.name = i.name;
      const span = document.createElement('span');
      span.append(l, f);
      return span;
    }));
  }

  function wire() {
    ui.tabs.replaceChildren(...FLOWS.map((f) => {
      const b = Object.assign(document.createElement('button'), { type: 'button', textContent: f.title });
      b.setAttribute('role', 'tab');
      b.dataset.flow = f.id;
      b.addEventListener('click', () => selectFlow(f.id));
      return b;
    }));
    ui.tabs.addEventListener('keydown', (e) => {      // arrow keys move between tabs
      if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
      e.stopPropagation();
      const i = FLOWS.findIndex((f) => f.id === flow.id) + (e.key === 'ArrowRight' ? 1 : -1);
      const next = FLOWS[(i + FLOWS.length) % FLOWS.length];
      selectFlow(next.id).then(() => ui.tabs.querySelector(`[data-flow=${next.id}]`).focus());
    });
    ui.play.addEventListener('click', togglePlay);
    ui.back.addEventListener('click', () => model && go(step(model, -1)));
    ui.forward.addEventListener('click', () => model && go(step(model, 1)));
    ui.scrub.addEventListener('input', () => model && go(seek(model, Number(ui.scrub.value))));
    ui.speed.addEventListener('change', () => { speed = Number(ui.speed.value) || 1; clock.setInterval(BASE_MS / speed); });
    document.addEventListener('keydown', (e) => {
      const t = e.target;
      if (t.closest && t.closest('input:not([type=range]):not([type=radio]), select, textarea, [role=tablist]')) return;
      if (!model) return;
      if (e.key === 'ArrowRight') { e.preventDefault(); go(step(model, 1)); }
      else if (e.key === 'ArrowLeft') { e.preventDefault(); go(step(model, -1)); }
      else if (e.key === 'Home') { e.preventDefault(); go(seek(model, 0)); }
      else if (e.key === 'End') { e.preventDefault(); go(seek(model, model.steps.length - 1)); }
      else if (e.key === ' ' && !(t.tagName === 'BUTTON')) { e.preventDefault(); togglePlay(); }
    });
    window.addEventListener('hashchange', () => {
      const h = parseHash(location.hash);
      if (h.flowId === flow.id && h.caseIndex === caseIndex && sameInput(h.input)) {
        if (h.step && model) {
          const named = /^\d+$/.test(h.step) ? Number(h.step) - 1 : stepNamed(model, h.step);
          if (named >= 0 && named !== model.cursor) go(seek(model, named));
        }
        return;
      }
      pendingStep = h.step;
      selectFlow(h.flowId, h.caseIndex, h.input);
    });
    if (reducedMotion) document.body.classList.add('reduced-motion');
  }

  function sameInput(inp) {
    return Object.entries(inp).every(([k, v]) => String(input[k]) === String(v));
  }

  wire();
  const start = parseHash(location.hash);
  pendingStep = start.step;
  const ready = selectFlow(start.flowId, start.caseIndex, start.input);

  return {
    ready,
    get model() { return model; },
    get flow() { return flow; },
    get playing() { return clock.playing; },
    get busy() { return busy; },
    flush() { clock.flush(); },
    togglePlay,
    selectFlow,
  };
}
