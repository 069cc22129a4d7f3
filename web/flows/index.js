// flows/index.js -- the flows the page plays, in tab order, and the one
// function that turns a flow's run data into a model. Owns nothing else.

import { createModel, layout, walker } from '../model.js';
import { display } from '../display.js';
import writer from './writer.js';
import envelope from './envelope.js';
import compare from './compare.js';
import fanout from './fanout.js';

export const FLOWS = [writer, envelope, compare, fanout];

/** What the page needs of each flow (its texts, cases, inputs, code lines):
 *  plain data the worker posts to the page, so that the page imports none
 *  of the flows' modules (each would be fetched once more, for the page). */
export function describe(flows = FLOWS) {
  return flows.map(({ id, title, short, source, framesTitle, legend, lines, cases, inputs }) =>
    JSON.parse(JSON.stringify({ id, title, short, source, framesTitle, legend, lines, cases, inputs })));
}

export function flowById(id) {
  return FLOWS.find((f) => f.id === id) || FLOWS[0];
}

/** The model of one case from its run data (pure: no module, no DOM). Its
 *  memory is laid out for drawing (model.js layout), its legend is the
 *  cell states the case uses, or the flow's own, and the text the page
 *  draws is written into it (display.js). */
export function buildModel(flow, caseIndex, data) {
  const w = walker(data.trace ? data.trace.events : []);
  const extra = flow.steps(data, w, caseIndex) || {};
  const states = layout(w.steps);
  return display(createModel(flow.id, caseIndex, w.steps, { ...extra, legend: flow.legend || states,
    result: data.trace?.result, overflow: !!data.trace?.overflow }));
}
