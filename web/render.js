// render.js -- draws one step of a model into the page's panels. Owns: the
// code panel, verdict, why, frames, legend, memory (cells, gauges, the
// expected-against-actual rows, the pool, the tables, the fan-out summary)
// and the output line. Must not touch: timing, the module, the URL. It only
// reads what it is given: calling it twice with the same arguments gives the
// same DOM. Every cell state has a colour, a glyph and a spoken name. The
// numbers, hex and sentences come written in the model (display.js, in the
// worker): nothing here formats them. The one thing it keeps between calls:
// on a narrow screen (ui.narrow), where the buffers a step does not change
// fold to their title line, the folds the reader opened or closed in a case.


/** How each state looks and is named (the legend reads this table too). */
export const LOOK = {
  empty: { glyph: '', name: 'not written' },
  written: { glyph: '●', name: 'written' },
  nested: { glyph: '▲', name: 'written by the nested call' },
  overwritten: { glyph: '✕', name: 'overwritten (struck: what it was)' },
  rewritten: { glyph: '↻', name: 'written again over the nested call\'s leftovers' },
  copied: { glyph: '→', name: 'copied' },
  changed: { glyph: '', name: 'changed in this step (thick outline)' },
  held: { glyph: '■', name: 'place holding a 4 KiB array' },
  place: { glyph: '', name: 'empty place' },
  'slot-full': { glyph: '●', name: 'thread slot with an array' },
  'slot-empty': { glyph: '○', name: 'empty thread slot' },
};

function el(tag, attrs = {}, ...children) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') n.className = v; else if (k === 'text') n.textContent = v; else n.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) n.append(c);
  return n;
}

/** Renders the current step of `model` for `flow` into the panels of `ui`;
 *  with `live` false the live region (verdict, why, state) keeps its words. */
export function render(ui, flow, model, notice = '', { live = true } = {}) {
  const s = model.steps[model.cursor];
  // What depends on the case alone is built once per model; a step only
  // moves the marks (same DOM as a rebuild, less work per step).
  if (drawn.get(ui.code) !== model.steps || !model.steps.length) {
    drawn.set(ui.code, model.steps);
    ui.code.replaceChildren(...codeLines(flow, model));
    ui.caption.replaceChildren(...caption(model, notice));
    ui.legend.replaceChildren(...legend(model.legend || []));
  }
  mark(ui.code.children, s ? s.line : -1, (li, on) => li.setAttribute('aria-current', on ? 'step' : 'false'));
  mark(ui.caption.children, model.cursor);
  ui.codeSummary.textContent = s && flow.lines[s.line] ? `line ${s.line + 1}: ${flow.lines[s.line].code.trim()}` : '';
  ui.source.textContent = flow.source;
  if (live) {
    ui.verdict.replaceChildren(...verdict(s));
    ui.why.textContent = s ? s.why || '' : notice || 'Running the module…';
    ui.state.textContent = s && s.state ? s.state : '';
  }
  ui.framesTitle.textContent = flow.framesTitle || 'Call stack';
  ui.frames.replaceChildren(...(s ? s.frames || [] : []).map((f, i) => el('li', { text: f, 'data-depth': i })));
  const focused = focusedBuffer(ui.memory);
  ui.memory.replaceChildren(...(s ? memory(s, model, folds(ui, model)) : []));
  if (focused !== null) refocus(ui.memory, focused);
  ui.out.textContent = s && s.out ? s.out : '';
  ui.note.textContent = [model.note, notice].filter(Boolean).join(' ');
  ui.position.textContent = s ? `step ${model.cursor + 1} of ${model.steps.length}` : '';
}

// A step redraws the buffers: the reader's keyboard focus on one (its
// summary, a cell) goes to the same place in the new drawing, not to <body>.
function focusedBuffer(panel) {
  const a = document.activeElement;
  if (a === null || !panel.contains(a)) return null;
  const box = a.closest('[data-key]');
  if (box === null) return null;
  const same = [...box.querySelectorAll(a.tagName)];
  return { key: box.dataset.key, tag: a.tagName, index: same.indexOf(a) };
}

function refocus(panel, f) {
  const box = [...panel.querySelectorAll('[data-key]')].find((b) => b.dataset.key === f.key);
  const target = box ? box.querySelectorAll(f.tag)[f.index] ?? box.querySelector('summary') : null;
  if (target) target.focus({ preventScroll: true });
}

const drawn = new WeakMap();        // panel -> the steps it was drawn for
const opened = new WeakMap();       // the memory panel -> { steps, the reader's choice per buffer key }

// How buffers fold in this drawing: null on a wide screen (none folds); on
// a narrow one, the reader's own choices (buffer key -> open), kept while
// the case stays (the same steps) and forgotten when it changes.
function folds(ui, model) {
  if (!ui.narrow || !ui.narrow.matches) return null;
  let f = opened.get(ui.memory);
  if (!f || f.steps !== model.steps) {
    f = { steps: model.steps, choice: new Map() };
    opened.set(ui.memory, f);
  }
  return f.choice;
}

// Marks the i-th child 'current' (or 'on') and unmarks the others.
function mark(children, i, also = null) {
  for (let k = 0; k < children.length; k++) {
    const on = k === i;
    children[k].classList.toggle(children[k].tagName === 'LI' ? 'current' : 'on', on);
    if (also) also(children[k], on);
  }
}

function codeLines(flow, model) {
  const skip = new Set(model.skip || []);
  return flow.lines.map((line, i) => el('li', { class: skip.has(i) ? 'skipped' : null, 'data-line': i },
    el('code', { text: line.code || ' ' }),
    line.c ? el('span', { class: 'c', text: line.c }) : null,
    skip.has(i) ? el('span', { class: 'sr-only', text: ' (not on this path)' }) : null));
}

// Every step's verdict, why and state, stacked in one grid cell with only
// the current one visible: the block is as tall as the case's longest, so
// nothing under it moves from step to step (the live region beside it, for
// screen readers, holds one step's text alone: the step the reader took or
// playback stopped at, see player.js).
function caption(model, notice) {
  if (!model.steps.length) return [el('div', { class: 'cap on' }, el('p', { class: 'why', text: notice || 'Running the module…' }))];
  return model.steps.map((s) => el('div', { class: 'cap' },
    ...verdict(s), el('p', { class: 'why', text: s.why || '' }), s.state ? el('p', { class: 'state', text: s.state }) : null));
}

function verdict(s) {
  if (!s || s.verdict === undefined) return [];
  return [el('span', { class: `verdict ${s.verdict ? 'true' : 'false'}`, text: `condition: ${s.verdict} ${s.verdict ? '✓' : '✗'}` })];
}

function legend(states) {
  // A legend of cell states (not the fan-out's own) also says what a thick outline means.
  const items = [...states, ...(states.includes('empty') ? ['changed'] : [])];
  return items.map((k) => el('li', {},
    el('span', { class: `key ${k}`, 'aria-hidden': 'true' }, el('span', { class: 'g', text: LOOK[k].glyph })),
    ` ${LOOK[k].name}`));
}

function memory(s, model, choice) {
  const parts = [];
  if (model.recorded) parts.push(el('p', { class: 'recorded', text: `${model.recorded.label || 'Recorded run'}: ${model.recorded.what}` }));
  if (s.pool) parts.push(pool(s.pool));
  // A buffer the step changes is open (its changed cells are the step's
  // point); another is as the reader left it, else open only when the step
  // changes no buffer (nothing to bring forward).
  const bufs = s.memory || [];
  const touched = (b) => b.cells.some((c) => c.c);
  const any = bufs.some(touched);
  for (const b of bufs) {
    const fold = choice ? { open: touched(b) || (choice.has(b.key) ? choice.get(b.key) : !any), choice } : null;
    parts.push(bufferView(b, fold));
  }
  if (s.diff) parts.push(diffView(s.diff));
  if (s.table) parts.push(table(s.table));
  if (s.table?.note) parts.push(el('p', { class: 'table-note', text: s.table.note }));
  if (model.board) parts.push(board(model.board));
  return parts;
}

// ---- byte cells ----------------------------------------------------------

function cellName(kind, c) {
  const what = c.v < 0 ? 'not written' : `${c.x}, ${c.st === 'overwritten' ? `overwritten, was ${c.px}` : LOOK[c.st].name}`;
  return `${kind} byte ${c.n}: ${what}${c.c ? ', changed in this step' : ''}`;
}

function cell(kind, c) {
  const st = c.st;
  const mark = st === 'overwritten'
    ? el('span', { class: 'g', 'aria-hidden': 'true' }, LOOK.overwritten.glyph, el('s', { text: c.px }))
    : el('span', { class: 'g', 'aria-hidden': 'true', text: LOOK[st].glyph });
  return el('span', { class: `cell ${st}${c.c ? ' changed' : ''}`, role: 'listitem', 'data-i': c.i,
    'aria-label': cellName(kind, c) },
  el('span', { class: 'v', 'aria-hidden': 'true', text: c.x }), mark);
}

// `fold`: null draws the buffer whole; else { open, choice } draws it in a
// <details> whose title line stays (a click or Enter on it is the reader's
// choice for this buffer, kept in `choice`).
function bufferView(b, fold) {
  const row = el('div', { class: 'cells', role: 'list', 'aria-label': b.label });
  b.ranges.forEach(([from], r) => {
    if (r > 0) row.append(el('span', { class: 'skip', 'aria-hidden': 'true', text: '⋯' }));
    for (const c of b.cells) if (c.i >= from && c.i < b.ranges[r][1]) row.append(cell(b.kind, c));
  });
  const whole = b.ranges.length === 1 && b.ranges[0][0] === 0 && b.ranges[0][1] >= b.size;
  const status = b.absent ? ' — not yet' : b.abandoned ? ' — abandoned' : b.released ? ' — back in the pool' : '';
  const title = el('h3', {}, b.label + status, whole || b.absent ? null : el('span', { class: 'shown', text: ` · bytes ${b.shown} shown` }));
  const body = [b.gauge ? gauge(b) : null, row, b.meaning ? el('p', { class: 'meaning', text: b.meaning }) : null];
  const box = el('section', { class: `buffer ${b.kind}${b.absent ? ' absent' : ''}${b.abandoned ? ' abandoned' : ''}${b.released ? ' released' : ''}`,
    'data-key': b.key, 'data-kind': b.kind });
  if (!fold) {
    box.append(title, ...body.filter(Boolean));
    return box;
  }
  const head = el('summary', {}, title, el('span', { class: 'fold-note', text: b.cells.some((c) => c.c) ? '' : 'unchanged' }));
  const details = el('details', { class: 'fold', open: fold.open ? '' : null }, head, ...body.filter(Boolean));
  head.addEventListener('click', () => fold.choice.set(b.key, !details.open));
  box.append(details);
  return box;
}

function gauge(b) {
  const g = b.gauge;
  const pct = (n) => `${Math.min(100, (100 * n) / g.size)}%`;
  const ask = g.pending, short = b.short, text = b.gaugeText;
  return el('div', { class: 'gauge-box' },
    el('div', { class: `gauge${short > 0 ? ' overflows' : ''}`, role: 'img', 'aria-label': `${b.label}: ${text}` },
      g.used ? el('span', { class: 'fill', style: `width: max(3px, ${pct(g.used)})` }) : null,
      ask ? el('span', { class: 'ask', style: `left: ${pct(ask.offset)}; width: max(3px, ${pct(Math.min(ask.size, g.size - ask.offset))})` }) : null,
      short > 0 ? el('span', { class: 'over', text: b.shortText }) : null),
    el('p', { class: 'gauge-text', 'aria-hidden': 'true', text }));
}

function diffView(d) {
  const row = (label, which) => el('div', { class: 'diff-row', 'data-row': which },
    el('span', { class: 'diff-label', text: label }),
    el('div', { class: 'cells', role: 'list', 'aria-label': label }, ...d.cells.map((c) => {
      const x = which === 'expected' ? c.ex : c.ax;
      return el('span', { class: `cell ${c.same ? 'same' : 'differs'}`, role: 'listitem', 'data-i': c.i,
        'aria-label': `byte ${c.i}: ${x || 'none'}${c.same ? '' : ', differs'}` },
      el('span', { class: 'v', 'aria-hidden': 'true', text: x }),
      el('span', { class: 'g', 'aria-hidden': 'true', text: c.same ? '=' : '≠' }));
    })));
  return el('section', { class: `diff ${d.differ ? 'bad' : 'good'}`, 'aria-label': 'expected against actual' },
    el('h3', { text: `Expected against actual: ${d.verdictText}` }),
    row(d.expected, 'expected'), row(d.actual, 'actual'));
}

// ---- the fan-out ----------------------------------------------------------

function pool(p) {
  const box = el('section', { class: 'pool', 'data-kind': p.kind });
  if (p.slots.length) {
    box.append(el('h3', { text: 'thread slots (one array each, no lock)' }),
      el('ul', { class: 'slots' }, ...p.slots.map((x) => el('li', { class: `slot ${x.full ? 'full' : 'empty'}` },
        el('span', { 'aria-hidden': 'true', text: x.full ? '● ' : '○ ' }), `${x.label}${x.full ? ': holds an array' : ': empty'}`))));
  }
  box.append(el('h3', { text: p.title }));
  if (p.cap) {
    const full = Math.round(p.held / p.perSquare);
    const places = el('div', { class: 'places', role: 'img', 'aria-label': p.heldText });
    for (let i = 0; i < p.squares; i++) places.append(el('span', { class: `place${i < full ? ' held' : ''}` }));
    box.append(places, el('p', { class: 'inflight', text: p.squareText }));
  }
  box.append(el('p', { class: 'inflight', text: p.inFlightText }));
  box.append(el('dl', { class: 'counters' }, ...p.counters.flatMap(([k, , text]) =>
    [el('dt', { text: k }), el('dd', { text, 'data-counter': k })])));
  return box;
}

// The three pools side by side: a bar per pool and metric, the current
// case's pool marked.
function board(b) {
  const box = el('section', { class: 'board', 'aria-label': 'the three pools side by side' },
    el('h3', { text: 'The same workload on the three pools' }));
  for (const m of b.bars) {
    box.append(el('div', { class: 'metric', 'data-metric': m.key },
      el('p', { class: 'metric-label', text: m.label }),
      el('ul', { class: 'bars' }, ...m.items.map((x) => el('li', { class: `bar-row${x.id === b.current ? ' current' : ''}`, 'data-pool': x.id },
        el('span', { class: 'bar-name', text: `${x.id === b.current ? '▶ ' : ''}${x.name}` }),
        el('span', { class: 'bar-track', 'aria-hidden': 'true' },
          el('span', { class: `bar ${x.id}`, style: `width: ${x.value ? Math.max(0.5, 100 * x.width) : 0}%` }),
          x.range ? el('span', { class: 'range', style: `left: ${100 * x.range[0]}%; width: ${Math.max(0.5, 100 * (x.range[1] - x.range[0]))}%` }) : null),
        el('span', { class: 'bar-value', 'data-value': x.value === null ? '' : String(x.value), text: x.text }))))));
  }
  if (b.headline) box.append(el('p', { class: 'conclusion' }, el('strong', { text: 'Conclusion: ' }), b.headline));
  if (b.rest) box.append(el('p', { class: 'conclusion-rest', text: b.rest }));
  if (b.nativeText) {
    box.append(el('p', { class: 'native' }, el('strong', { text: 'Recorded natively, not in this browser: ' }), b.nativeText));
  }
  return box;
}

// ---- tables ----------------------------------------------------------------

// In a focusable scroll box named by the table's caption: on a phone the
// table keeps a width its headers fit in, and scrolls inside the box.
function table(t) {
  return el('div', { class: 'table-box', tabindex: '0', role: 'region', 'aria-labelledby': 'compare-caption' }, el('table', { class: 'compare' },
    el('caption', { id: 'compare-caption', class: 'sr-only', text: t.caption }),
    el('thead', {}, el('tr', {}, ...t.head.map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, ...t.rows.map((r) => el('tr', {},
      el('th', { scope: 'row', text: r.label }),
      ...r.cells.map((c, i) => el('td', { class: c === null ? 'pending' : null },
        c === null ? 'not measured yet' : c, i === 2 && r.same ? el('span', { class: 'match', text: ' ✓ as the document' }) : null)))))));
}
