// app.js -- boots the page: starts the worker that runs the module
// (runner.js), hands the panels to the player, opens the intro, inputs and
// code on wide screens (closed on a phone, where the step's explanation and
// memory come first), and says plainly what is wrong when something is, so
// the page is never blank. Owns: the notices and the test hook window.__player.

import { createRunner } from './runner.js';
import { createPlayer } from './player.js';

const $ = (id) => document.getElementById(id);
const ui = {
  tabs: $('tabs'), panel: $('panel'), stage: $('stage'), cases: $('cases'), inputs: $('inputs'), inputsBox: $('inputs-box'),
  play: $('play'), back: $('back'), forward: $('forward'), scrub: $('scrub'), speed: $('speed'), position: $('position'),
  busy: $('busy'), caption: $('caption'), code: $('code'), codeSummary: $('code-summary'), source: $('source'), verdict: $('verdict'),
  stopped: $('stopped'), why: $('why'), state: $('state'), framesTitle: $('frames-title'), frames: $('frames'), legend: $('legend'),
  memory: $('memory'), out: $('out'), note: $('note'),
  // on a narrow screen the buffers a step does not change fold (render.js)
  narrow: matchMedia('(max-width: 899px)'),
};

// The playback bar is fixed at the bottom: what keyboard focus lands on
// must not hide under it (WCAG 2.4.11), so the page's scroll padding
// follows the bar's height (style.css reads --bar-h).
const bar = document.querySelector('.transport');
if (bar !== null && typeof ResizeObserver === 'function')
  new ResizeObserver(() => document.documentElement.style.setProperty('--bar-h', `${bar.offsetHeight}px`)).observe(bar);

function banner(text, kind = 'info') {
  const n = $('notice');
  n.textContent = text;
  n.dataset.kind = kind;
  n.hidden = !text;
}

// ?recorded: the fan-out plays the run recorded from the pthread build even
// where it could run live (a page whose figures do not depend on the
// machine); the fan-out labels the run as recorded, as without threads.
// ?recorded=longest: made-up figures that give each of its sentences the
// longest form (the layout tests). The worker reads the value.
const recorded = new URLSearchParams(location.search).get('recorded');

async function boot() {
  const wide = matchMedia('(min-width: 900px)').matches;
  for (const id of ['intro', 'inputs-box', 'code-box']) $(id).open = wide;
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
  await player.ready;
}

boot().catch((e) => banner(`The page failed to start: ${e.message}`, 'error'));
