// app.js -- boots the page: loads the module (trace.js), hands the panels
// to the player, and says plainly what is wrong when something is, so the
// page is never blank. Owns: the notices and the test hook window.__player.

import { canUseThreads, loadFlows } from './trace.js';
import { createPlayer } from './player.js';

const $ = (id) => document.getElementById(id);
const ui = {
  tabs: $('tabs'), cases: $('cases'), inputs: $('inputs'), play: $('play'), back: $('back'),
  forward: $('forward'), scrub: $('scrub'), speed: $('speed'), position: $('position'),
  code: $('code'), source: $('source'), verdict: $('verdict'), why: $('why'), state: $('state'),
  frames: $('frames'), memory: $('memory'), out: $('out'), note: $('note'),
};

function banner(text, kind = 'info') {
  const n = $('notice');
  n.textContent = text;
  n.dataset.kind = kind;
  n.hidden = !text;
}

async function boot() {
  const threaded = canUseThreads();
  $('build').textContent = threaded ? 'pthreads build (cross-origin isolated)' : 'single-threaded build';
  if (!threaded) {
    banner('This page is not cross-origin isolated, so it runs the single-threaded build. '
      + 'Every flow works except the pool fan-out, which needs threads: open the page through `npm start` '
      + '(it sends Cross-Origin-Opener-Policy and Cross-Origin-Embedder-Policy).');
  }
  let runner;
  try {
    runner = await loadFlows();
  } catch (e) {
    banner(`The WebAssembly module did not load: ${e.message}. Build it with \`npm start\` (or bash tests/build-wasm.sh).`, 'error');
    $('why').textContent = 'Nothing to play without the module.';
    return;
  }
  const reducedMotion = matchMedia('(prefers-reduced-motion: reduce)').matches;
  const player = createPlayer({ ui, runner, reducedMotion,
    notice: 'The fan-out runs on real pthreads, and this page has no shared memory (it is not cross-origin isolated). Open it through `npm start` to see this flow.' });
  window.__player = player;
  await player.ready;
}

boot().catch((e) => banner(`The page failed to start: ${e.message}`, 'error'));
