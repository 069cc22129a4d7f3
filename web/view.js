// view.js -- the page's side of a model (the main thread; the worker builds
// models in model.js and writes their text in display.js): moving its
// cursor. Owns nothing else; must not touch the DOM or the module.

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
