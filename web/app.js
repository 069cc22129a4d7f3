// app.js -- boots the page: starts the worker that runs the module
// (runner.js), hands the panels to the player, opens the intro, inputs and
// code on wide screens (closed on a phone, where the step's explanation and
// memory come first; the code again when a resize crosses 900 px), and says plainly what
// is wrong when something is, so the page is never blank. Owns: the
// notices, the intro box's tab stop and the test hook window.__player.

import { createRunner } from './runner.js';
import { createPlayer } from './player.js';

const $ = (id) => document.getElementById(id);
const ui = {
  tabs: $('tabs'), panel: $('panel'), stage: $('stage'), cases: $('cases'), inputs: $('inputs'), inputsBox: $('inputs-box'),
  play: $('play'), back: $('back'), forward: $('forward'), scrub: $('scrub'), speed: $('speed'), position: $('position'),
  busy: $('busy'), caption: $('caption'), code: $('code'), codeSummary: $('code-summary'), source: $('source'), verdict: $('verdict'),
  stopped: $('stopped'), why: $('why'), state: $('state'), framesTitle: $('frames-title'), frames: $('frames'), legend: $('legend'),
  memory: $('memory'), out: $('out'), note: $('note'), live: $('live'),
  // on a narrow screen the buffers a step does not change fold (render.js)
  narrow: matchMedia('(max-width: 899px)'),
};

// The playback bar is fixed at the bottom: neither what keyboard focus
// lands on (WCAG 2.4.11) nor the page's end may hide under it, so the
// page's scroll padding and bottom padding follow the bar's height
// (style.css reads --bar-h).
const bar = document.querySelector('.transport');
if (bar !== null && typeof ResizeObserver === 'function')
  new ResizeObserver(() => document.documentElement.style.setProperty('--bar-h', `${bar.offsetHeight}px`)).observe(bar);

// The notice is in the page from the start, empty (a live region must be
// there before its words are); an error is an alert, anything else a status.
function banner(text, kind = 'info') {
  const n = $('notice');
  n.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  n.dataset.kind = kind;
  n.textContent = text;
}

// The intro's box is a tab stop only while it scrolls (a phone's box a
// fifth of the screen tall): otherwise a stop that does nothing, and one
// where the step keys do not work.
const introBody = $('intro-body');
function introStop() {
  const scrolls = introBody.scrollHeight > introBody.clientHeight + 1;
  if (scrolls) introBody.tabIndex = 0; else introBody.removeAttribute('tabindex');
}
if (typeof ResizeObserver === 'function') {
  // The box's size (opened, a rotation) and its text's (the build named once loaded).
  const ro = new ResizeObserver(introStop);
  for (const el of [introBody, ...introBody.children]) ro.observe(el);
} else {
  introBody.tabIndex = 0;
}

// ?recorded: the fan-out plays the run recorded from the pthread build even
// where it could run live (a page whose figures do not depend on the
// machine); the fan-out labels the run as recorded, as without threads.
// ?recorded=longest: made-up figures that give each of its sentences the
// longest form (the layout tests). The worker reads the value.
const recorded = new URLSearchParams(location.search).get('recorded');

// From 900 px the code panel has no summary to open it by: it is open
// there, and closed again on a phone (a resize, a rotation).
const wide = matchMedia('(min-width: 900px)');

async function boot() {
  for (const id of ['intro', 'inputs-box', 'code-box']) $(id).open = wide.matches;
  let runner, threaded, flows;
  try {
    runner = createRunner(new URL(recorded === null ? './worker.js' : `./worker.js?recorded=${encodeURIComponent(recorded)}`, import.meta.url));
    ({ threaded, flows } = await runner.ready);
  } catch (e) {
    banner(`The WebAssembly module did not load: ${e.message}. Build it with npm start (or bash tests/build-wasm.sh).`, 'error');
    $('why').textContent = 'Nothing to play without the module.';
    return;
  }
  $('build').textContent = threaded ? 'the pthreads build (the page is cross-origin isolated), in a worker'
    : 'the single-threaded build, in a worker';
  if (!threaded) {
    banner('This page is not cross-origin isolated, so it runs the single-threaded build: the pool fan-out plays '
      + 'a run recorded from the pthread build. Open the page through npm start to run it live.');
  }
  const reducedMotion = matchMedia('(prefers-reduced-motion: reduce)').matches;
  const player = createPlayer({ ui, runner, threaded: threaded && recorded === null, flows, reducedMotion });
  window.__player = player;
  // Narrow or wide: the code panel as at start-up, the buffers folded or not (render.js).
  wide.addEventListener('change', () => {
    $('code-box').open = wide.matches;
    player.redraw();
  });
  await player.ready;
}

boot().catch((e) => banner(`The page failed to start: ${e.message}`, 'error'));
