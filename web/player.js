// player.js -- plays a flow: the clock (one requestAnimationFrame loop with a
// generation counter, flush() for tests), the controls (the flow tabs, play/
// pause, step, scrubber, speed, case switcher, inputs), the keyboard, the
// busy state while the worker runs, and the URL hash that deep-links a
// flow, case, inputs and step.
// Owns: view state (the model's cursor, moved by the pure functions below:
// the page's side of a model) and when to ask for a new model. Must not touch: how
// steps are made (flows/, model.js, in the worker) or drawn (render.js).

import { render } from './render.js';

// ---- the cursor: a model moved to another step (pure: tested) ----

/** The model moved by delta steps (clamped to the ends). */
export function step(model, delta) {
  return seek(model, model.cursor + delta);
}

/** The model at step i (clamped). */
export function seek(model, i) {
  const last = Math.max(0, model.steps.length - 1);
  return { ...model, cursor: Math.min(last, Math.max(0, i | 0)) };
}

/** The current step, or null for an empty model. */
export function currentStep(model) {
  return model.steps[model.cursor] || null;
}

export function atEnd(model) {
  return model.cursor >= model.steps.length - 1;
}

/** Index of the step named `name`, or -1. */
export function stepNamed(model, name) {
  return model.steps.findIndex((s) => s.name === name);
}

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
  for (const i of flow.inputs) if (p.has(i.name)) input[i.name] = listedValue(i, p.get(i.name));
  return { flowId: flow.id, caseIndex: Math.max(0, ci), input, step: p.get('step') };
}

/** A linked value for input `i`: a select's own option nearest to it (its
 *  default when the link's value is not a number), so that the select
 *  shows what runs; other inputs' values as they are (pure: tested). */
export function listedValue(i, v) {
  if (i.type !== 'select') return v;
  const values = i.options.map(([x]) => x);
  if (values.includes(v)) return v;
  const n = Number(v), num = (x) => Number.isFinite(Number(x)) && x.trim() !== '';
  if (!num(v) || !values.every(num)) return i.default;
  return values.reduce((best, x) => (Math.abs(Number(x) - n) < Math.abs(Number(best) - n) ? x : best));
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

// The player's parts share one state: the flow, case, inputs and model on
// show, and what the next model should open at.
function createState(flow) {
  return { flow, caseIndex: 0, input: defaults(flow, 0), model: null, speed: 1, pendingStep: null,
    busy: Promise.resolve(), runGen: 0, hashTimer: 0 };
}

export function createPlayer({ ui, runner, threaded, flows, reducedMotion = false }) {
  if (flows) useFlows(flows);
  const st = createState(FLOWS[0]);
  const clock = createClock();
  const screen = createScreen(ui, st, clock);
  const rerun = () => runFlow(ui, st, runner, clock, screen);
  const build = () => buildControls(ui, st, threaded, { selectCase, rerun });

  function selectFlow(id, ci = 0, inp = null) {
    st.flow = flowById(id);
    st.caseIndex = ci;
    st.input = { ...defaults(st.flow, ci), ...(inp || {}) };
    // Without threads a threads-only input keeps the value the recorded run used.
    for (const i of st.flow.inputs) if (i.threadsOnly && !threaded) st.input[i.name] = i.default;
    build();
    return rerun();
  }

  function selectCase(ci) {
    st.caseIndex = ci;
    for (const i of st.flow.inputs) if (i.perCase) st.input[i.name] = st.flow.cases[ci][i.name];
    build();
    return rerun();
  }

  function togglePlay() {
    if (clock.playing) { clock.pause(); screen.show({ stop: 'paused' }); return; }
    if (!st.model || !st.model.steps.length) return;
    if (atEnd(st.model)) st.model = seek(st.model, 0);
    clock.play(() => screen.go(step(st.model, 1), { auto: true }), BASE_MS / st.speed);
    screen.show({ auto: true });
  }

  wireTabs(ui, st, selectFlow);
  wireTransport(ui, st, clock, screen, togglePlay);
  wireKeys(st, screen, togglePlay);
  wireHash(st, screen, selectFlow);
  if (reducedMotion) document.body.classList.add('reduced-motion');
  const start = parseHash(location.hash);
  st.pendingStep = start.step;
  const ready = selectFlow(start.flowId, start.caseIndex, start.input);

  return {
    ready,
    get model() { return st.model; },
    get flow() { return st.flow; },
    get playing() { return clock.playing; },
    get busy() { return st.busy; },
    flush() { clock.flush(); },
    togglePlay,
    selectFlow,
    /** Draws the step on show again (the layout changed: narrow or wide), the live region left as it is. */
    redraw() { if (st.model) render(ui, st.flow, st.model, '', { live: false }); },
  };
}

// ---- the screen: the model drawn, the scrubber and the URL following it ----

// The live region speaks the steps the reader takes (a step, a case, a
// link) and where playback stops; while playback moves on by itself
// (`auto`) it is turned off (aria-live off), or a screen reader would hear
// every step, but still follows the step, so that reading it gives the
// step on show.
function createScreen(ui, st, clock) {
  function show({ auto = false, stop = null } = {}) {
    const { model, flow } = st;
    if (!model) return;
    const quiet = auto && clock.playing;
    ui.live.setAttribute('aria-live', quiet ? 'off' : 'polite');
    render(ui, flow, model, '');
    const n = model.steps.length;
    ui.stopped.textContent = quiet ? '' : stop === 'paused' ? `Paused at step ${model.cursor + 1} of ${n}.`
      : stop === 'ended' ? `Played to the end: step ${n} of ${n}.` : '';
    ui.scrub.max = String(Math.max(0, model.steps.length - 1));
    ui.scrub.value = String(model.cursor);
    ui.scrub.setAttribute('aria-valuetext', ui.position.textContent);
    // A plain button named for what it does (no aria-pressed: a toggle's name must not change).
    ui.play.textContent = clock.playing ? 'Pause' : 'Play';
    // The hash follows after a pause: scrubbing fast would otherwise hit
    // the browser's limit on history updates.
    clearTimeout(st.hashTimer);
    const h = formatHash({ flowId: flow.id, caseIndex: st.caseIndex, input: st.input, step: model.cursor });
    st.hashTimer = setTimeout(() => history.replaceState(null, '', h), HASH_MS);
  }

  function go(next, { auto = false } = {}) {
    st.model = next;
    const ended = clock.playing && atEnd(st.model);
    if (ended) clock.pause();
    show({ auto, stop: ended ? 'ended' : null });
  }

  function setBusy(on, text = '') {
    ui.busy.textContent = on ? `Running the module${text ? `: ${text}` : '…'}` : '';
    ui.stage.setAttribute('aria-busy', String(on));
    document.body.dataset.busy = String(on);
  }

  return { show, go, setBusy };
}

// ---- a run: asks the worker for the current flow, case and input ----------

// An answer to an older question (the reader changed something meanwhile)
// is dropped.
function runFlow(ui, st, runner, clock, screen) {
  const g = ++st.runGen;
  const { flow, caseIndex } = st;
  clock.pause();
  document.body.dataset.ready = 'false';
  const want = st.pendingStep;
  st.pendingStep = null;
  let progress = '';
  const slow = setTimeout(() => g === st.runGen && screen.setBusy(true, progress), BUSY_AFTER_MS);
  const asked = runner.model(flow.id, caseIndex, st.input, (text) => {
    progress = text;
    if (g === st.runGen && document.body.dataset.busy === 'true') screen.setBusy(true, text);
  });
  st.busy = asked.then((m) => {
    if (g !== st.runGen || !m) return;
    const named = want !== null && !/^\d+$/.test(want) ? stepNamed(m, want) : -1;
    st.model = seek(m, named >= 0 ? named : want !== null && /^\d+$/.test(want) ? Number(want) - 1 : 0);
    screen.show();
  }, (e) => {
    if (g !== st.runGen) return;
    st.model = null;
    render(ui, flow, { flowId: flow.id, caseIndex, steps: [], cursor: 0, skip: [] }, `The module could not run this flow: ${e.message}`);
  }).finally(() => {
    clearTimeout(slow);
    if (g !== st.runGen) return;
    screen.setBusy(false);
    document.body.dataset.ready = 'true';
  });
  return st.busy;
}

// ---- controls: the flow tabs, the case switcher, the inputs -----------------

function labelled(text, short) {
  const out = [Object.assign(document.createElement('span'), { className: short ? 'long' : '', textContent: text })];
  if (short) out.push(Object.assign(document.createElement('span'), { className: 'short', textContent: short }));
  return out;
}

// Draws the tabs' selection, the case switcher and the inputs of the flow on show.
function buildControls(ui, st, threaded, { selectCase, rerun }) {
  const { flow } = st;
  for (const b of ui.tabs.querySelectorAll('[role=tab]')) {
    const on = b.dataset.flow === flow.id;
    b.setAttribute('aria-selected', String(on));
    b.tabIndex = on ? 0 : -1;
    if (on) ui.panel.setAttribute('aria-labelledby', b.id);
  }
  const keep = ui.cases.contains(document.activeElement);   // arrow keys on the radios: focus stays there
  ui.cases.replaceChildren(...flow.cases.map((c, i) => caseButton(st, c, i, selectCase)));
  if (keep) ui.cases.querySelector('input:checked')?.focus();
  ui.inputs.replaceChildren(...flow.inputs.map((i) => inputField(st, threaded, i, rerun)));
  ui.inputsBox.hidden = flow.inputs.length === 0;
}

// The radio inside its label: a tap anywhere on the case picks it.
function caseButton(st, c, i, selectCase) {
  const id = `case-${c.id}`;
  const r = Object.assign(document.createElement('input'), { type: 'radio', name: 'case', id, value: String(i), checked: i === st.caseIndex });
  r.addEventListener('change', () => selectCase(i));
  const l = Object.assign(document.createElement('label'), { className: 'case', htmlFor: id });
  l.append(r, ...labelled(c.label, c.short));
  return l;
}

function inputField(st, threaded, i, rerun) {
  const id = `input-${i.name}`;
  const l = Object.assign(document.createElement('label'), { htmlFor: id, textContent: i.label });
  const f = i.type === 'select' ? selectField(st, i, rerun) : textField(st, i, rerun);
  f.id = id;
  f.name = i.name;
  const span = document.createElement('span');
  span.append(l, f);
  // Disabled, it says why in words on screen, tied to it for screen readers.
  if (i.threadsOnly && !threaded) {
    f.disabled = true;
    const why = Object.assign(document.createElement('span'), { id: `${id}-why`, className: 'hint',
      textContent: `the recorded run used ${i.default}; other counts need the pthread build (npm start)` });
    f.setAttribute('aria-describedby', why.id);
    span.append(why);
  }
  return span;
}

function selectField(st, i, rerun) {
  const f = document.createElement('select');
  for (const [v, t] of i.options) f.append(new Option(t, v, false, String(st.input[i.name]) === v));
  f.addEventListener('change', () => { st.input[i.name] = f.value; rerun(); });
  return f;
}

// A text input re-runs once typing pauses (or on change).
function textField(st, i, rerun) {
  let typing = 0;
  const f = Object.assign(document.createElement('input'), { type: i.type === 'number' ? 'number' : 'text',
    value: st.input[i.name] ?? '', maxLength: 200 });
  const apply = () => {
    clearTimeout(typing);
    if (String(st.input[i.name]) === f.value) return;
    st.input[i.name] = f.value;
    rerun();
  };
  f.addEventListener('input', () => { clearTimeout(typing); typing = setTimeout(apply, TYPING_MS); });
  f.addEventListener('change', apply);
  return f;
}

// The flow tabs, and the ARIA tabs pattern: arrows move (and select) with
// wrap-around, Home/End the ends.
function wireTabs(ui, st, selectFlow) {
  ui.tabs.replaceChildren(...FLOWS.map((f) => {
    const b = Object.assign(document.createElement('button'), { type: 'button', id: `tab-${f.id}` });
    b.append(...labelled(f.title, f.short));
    b.setAttribute('role', 'tab');
    b.setAttribute('aria-controls', ui.panel.id);
    b.dataset.flow = f.id;
    b.addEventListener('click', () => selectFlow(f.id));
    return b;
  }));
  ui.tabs.addEventListener('keydown', (e) => {
    const i = FLOWS.findIndex((f) => f.id === st.flow.id);
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: FLOWS.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    const next = FLOWS[(to + FLOWS.length) % FLOWS.length];
    ui.tabs.querySelector(`[data-flow=${next.id}]`).focus();
    if (next.id !== st.flow.id) selectFlow(next.id);
  });
}

// ---- the playback bar, the keys and the URL hash ----------------------------

function wireTransport(ui, st, clock, screen, togglePlay) {
  ui.play.addEventListener('click', togglePlay);
  ui.back.addEventListener('click', () => st.model && screen.go(step(st.model, -1)));
  ui.forward.addEventListener('click', () => st.model && screen.go(step(st.model, 1)));
  ui.scrub.addEventListener('input', () => st.model && screen.go(seek(st.model, Number(ui.scrub.value))));
  ui.speed.addEventListener('change', () => { st.speed = Number(ui.speed.value) || 1; clock.setInterval(BASE_MS / st.speed); });
}

function wireKeys(st, screen, togglePlay) {
  document.addEventListener('keydown', (e) => {
    const { model } = st;
    const act = model && !e.altKey && !e.ctrlKey && !e.metaKey ? keyAction(e.key, e.target) : null;
    if (!act) return;
    e.preventDefault();
    if (act === 'play') togglePlay();
    else screen.go(act === 'next' ? step(model, 1) : act === 'back' ? step(model, -1)
      : seek(model, act === 'first' ? 0 : model.steps.length - 1));
  });
}

// A link to a step of the case on show moves the step; any other re-runs.
function wireHash(st, screen, selectFlow) {
  const sameInput = (inp) => Object.entries(inp).every(([k, v]) => String(st.input[k]) === String(v));
  window.addEventListener('hashchange', () => {
    clearTimeout(st.hashTimer);                    // the reader's link wins over a pending update
    const h = parseHash(location.hash);
    if (h.flowId === st.flow.id && h.caseIndex === st.caseIndex && sameInput(h.input)) {
      if (h.step && st.model) {
        const named = /^\d+$/.test(h.step) ? Number(h.step) - 1 : stepNamed(st.model, h.step);
        if (named >= 0 && named !== st.model.cursor) screen.go(seek(st.model, named));
      }
      return;
    }
    st.pendingStep = h.step;
    selectFlow(h.flowId, h.caseIndex, h.input);
  });
}
