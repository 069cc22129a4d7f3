// view.js -- the page's side of a model (the main thread; the worker builds
// models in model.js): moving its cursor, and the number and byte formats
// and cell-state names the drawing uses. Owns nothing else; must not touch
// the DOM or the module.
// The formats and names are a copy of model.js's (tests/web checks that they
// agree): the page and its worker are separate module worlds, so a module
// both imported would be fetched once for each.

export const CELL_NAMES = ['empty', 'written', 'nested', 'overwritten', 'rewritten', 'copied'];

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

/** 1234567 -> "1,234,567" (the documents' style). */
export function fmt(n) {
  return Math.round(n).toLocaleString('en-US');
}

/** Bytes as spaced upper-case hex: 93 AA 41. */
export function hex(bytes, max = 24) {
  const a = Array.from(bytes.slice(0, max), (b) => b.toString(16).toUpperCase().padStart(2, '0'));
  return a.join(' ') + (bytes.length > max ? ' …' : '');
}
