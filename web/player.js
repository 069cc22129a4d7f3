// player.js -- plays a flow: the clock (one requestAnimationFrame loop with a
// generation counter, flush() for tests), the controls (the flow tabs, play/
// pause, step, scrubber, speed, case switcher, inputs), the keyboard, the
// busy state while the worker runs, and the URL hash that deep-links a
// flow, case, inputs and step.
// Owns: view state and when to ask for a new model. Must not touch: how
// steps are made (flows/, model.js, in the worker) or drawn (render.js).

import { atEnd, seek, step, stepNamed } from './view.js';
import { render } from './render.js';

const BASE_MS = 1200;               // one step per 1.2 s at 1×
const BUSY_AFTER_MS = 150;          // a run that takes longer says so
const TYPING_MS = 300;              // inputs re-run once typing pauses
const HASH_MS = 100;                // the URL follows the view after this pause

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

// The flows as the worker describes them (flows/index.js describe()): the
// page does not import the flows' modules, which the worker already loads.
let FLOWS = [];
/** Sets the flows the player and the hash functions know. */
export function useFlows(list) { FLOWS = list; }
const flowById = (id) => FLOWS.find((f) => f.id === id) || FLOWS[0];

/** location.hash <-> view state (pure once useFlows ran). */
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

/** Which key does what when no control has the focus (pure: tested). */
export function keyAction(key, target = {}) {
  const tag = (target.tagName || '').toUpperCase();
  const role = target.getAttribute ? target.getAttribute('role') : null;
  // Text fields, selects, radios, the scrubber and the tabs keep their own keys.
  if (['INPUT', 'SELECT', 'TEXTAREA'].includes(tag) || role === 'tab' || target.isContentEditable) return null;
  // A focused scroll box (role region, e.g. the three entries' table) scrolls with the keys.
  if (role === 'region') return null;
  if (key === ' ') return ['BUTTON', 'SUMMARY', 'A'].includes(tag) ? null : 'play';
  return { ArrowRight: 'next', ArrowLeft: 'back', Home: 'first', End: 'last' }[key] || null;
}

/** Default inputs of a flow's case (text inputs that belong to a case take its value). */
function defaults(flow, caseIndex) {
  const out = {};
  for (const i of flow.inputs) out[i.name] = i.perCase ? flow.cases[caseIndex][i.name] : i.default;
  return out;
}

export function createPlayer({ ui, runner, threaded, flows, reducedMotion = false }) {
  if (flows) useFlows(flows);
  const clock = createClock();
  let flow = FLOWS[0], caseIndex = 0, input = defaults(flow, 0);
  let model = null, speed = 1, runGen = 0, busy = Promise.resolve(), pendingStep = null, typing = 0, hashTimer = 0;

  function show() {
    if (!model) return;
    render(ui, flow, model);
    ui.scrub.max = String(Math.max(0, model.steps.length - 1));
    ui.scrub.value = String(model.cursor);
    ui.scrub.setAttribute('aria-valuetext', ui.position.textContent);
    ui.play.textContent = clock.playing ? 'Pause' : 'Play';
    ui.play.setAttribute('aria-pressed', String(clock.playing));
    // The hash follows after a pause: scrubbing fast would otherwise hit
    // the browser's limit on history updates.
    clearTimeout(hashTimer);
    const h = formatHash({ flowId: flow.id, caseIndex, input, step: model.cursor });
    hashTimer = setTimeout(() => history.replaceState(null, '', h), HASH_MS);
  }

  function go(next) {
    model = next;
    if (clock.playing && atEnd(model)) clock.pause();
    show();
  }

  function setBusy(on, text = '') {
    ui.busy.textContent = on ? `Running the module${text ? `: ${text}` : '…'}` : '';
    ui.stage.setAttribute('aria-busy', String(on));
    document.body.dataset.busy = String(on);
  }

  // Asks the worker for the current flow, case and input; an answer to an
  // older question (the reader changed something meanwhile) is dropped.
  function rerun() {
    const g = ++runGen;
    clock.pause();
    document.body.dataset.ready = 'false';
    const want = pendingStep;
    pendingStep = null;
    let progress = '';
    const slow = setTimeout(() => g === runGen && setBusy(true, progress), BUSY_AFTER_MS);
    const asked = runner.model(flow.id, caseIndex, input, (text) => {
      progress = text;
      if (g === runGen && document.body.dataset.busy === 'true') setBusy(true, text);
    });
    busy = asked.then((m) => {
      if (g !== runGen || !m) return;
      const named = want !== null && !/^\d+$/.test(want) ? stepNamed(m, want) : -1;
      model = seek(m, named >= 0 ? named : want !== null && /^\d+$/.test(want) ? Number(want) - 1 : 0);
      show();
    }, (e) => {
      if (g !== runGen) return;
      model = null;
      render(ui, flow, { flowId: flow.id, caseIndex, steps: [], cursor: 0, skip: [] }, `The module could not run this flow: ${e.message}`);
    }).finally(() => {
      clearTimeout(slow);
      if (g !== runGen) return;
      setBusy(false);
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
  function labelled(text, short) {
    const out = [Object.assign(document.createElement('span'), { className: short ? 'long' : '', textContent: text })];
    if (short) out.push(Object.assign(document.createElement('span'), { className: 'short', textContent: short }));
    return out;
  }

  function buildControls() {
    for (const b of ui.tabs.querySelectorAll('[role=tab]')) {
      const on = b.dataset.flow === flow.id;
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
      if (on) ui.panel.setAttribute('aria-labelledby', b.id);
    }
    ui.cases.replaceChildren(...flow.cases.map((c, i) => {
      const id = `case-${c.id}`;
      const r = Object.assign(document.createElement('input'), { type: 'radio', name: 'case', id, value: String(i), checked: i === caseIndex });
      r.addEventListener('change', () => selectCase(i));
      const l = Object.assign(document.createElement('label'), { htmlFor: id });
      l.append(...labelled(c.label, c.short));
      const span = Object.assign(document.createElement('span'), { className: 'case' });
      span.append(r, l);
      return span;
    }));
    ui.inputs.replaceChildren(...flow.inputs.map((i) => inputField(i)));
    ui.inputsBox.hidden = flow.inputs.length === 0;
  }

  function inputField(i) {
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
      const apply = () => {
        clearTimeout(typing);
        if (String(input[i.name]) === f.value) return;
        input[i.name] = f.value;
        rerun();
      };
      f.addEventListener('input', () => { clearTimeout(typing); typing = setTimeout(apply, TYPING_MS); });
      f.addEventListener('change', apply);
    }
    f.id = id;
    f.name = i.name;
    if (i.threadsOnly && !threaded) {
      f.disabled = true;
      f.title = 'The recorded run used 3 threads; other counts need the pthread build (npm start).';
    }
    const span = document.createElement('span');
    span.append(l, f);
    return span;
  }

  function wireTabs() {
    ui.tabs.replaceChildren(...FLOWS.map((f) => {
      const b = Object.assign(document.createElement('button'), { type: 'button', id: `tab-${f.id}` });
      b.append(...labelled(f.title, f.short));
      b.setAttribute('role', 'tab');
      b.setAttribute('aria-controls', ui.panel.id);
      b.dataset.flow = f.id;
      b.addEventListener('click', () => selectFlow(f.id));
      return b;
    }));
    // The ARIA tabs pattern: arrows move (and select) with wrap-around, Home/End the ends.
    ui.tabs.addEventListener('keydown', (e) => {
      const i = FLOWS.findIndex((f) => f.id === flow.id);
      const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: FLOWS.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      e.stopPropagation();
      const next = FLOWS[(to + FLOWS.length) % FLOWS.length];
      ui.tabs.querySelector(`[data-flow=${next.id}]`).focus();
      if (next.id !== flow.id) selectFlow(next.id);
    });
  }

  function wire() {
    wireTabs();
    ui.play.addEventListener('click', togglePlay);
    ui.back.addEventListener('click', () => model && go(step(model, -1)));
    ui.forward.addEventListener('click', () => model && go(step(model, 1)));
    ui.scrub.addEventListener('input', () => model && go(seek(model, Number(ui.scrub.value))));
    ui.speed.addEventListener('change', () => { speed = Number(ui.speed.value) || 1; clock.setInterval(BASE_MS / speed); });
    document.addEventListener('keydown', (e) => {
      const act = model && !e.altKey && !e.ctrlKey && !e.metaKey ? keyAction(e.key, e.target) : null;
      if (!act) return;
      e.preventDefault();
      if (act === 'play') togglePlay();
      else go(act === 'next' ? step(model, 1) : act === 'back' ? step(model, -1)
        : seek(model, act === 'first' ? 0 : model.steps.length - 1));
    });
    window.addEventListener('hashchange', () => {
      clearTimeout(hashTimer);                     // the reader's link wins over a pending update
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
