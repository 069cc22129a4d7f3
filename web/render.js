// render.js -- draws one step of a model into the page's panels. Owns: the
// code panel, verdict, why, frames, memory cells, pool view, table, output.
// Must not touch: timing, the module, the URL. It only reads what it is
// given: calling it twice with the same arguments gives the same DOM.

import { CELL, fmt, hex } from './model.js';

const STATE_CLASS = ['empty', 'written', 'nested', 'overwritten', 'copied'];
const MAX_CELLS = 48;               // a 64 KiB scratch is drawn as its touched head and tail

function el(tag, attrs = {}, ...children) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') n.className = v; else if (k === 'text') n.textContent = v; else n.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) n.append(c);
  return n;
}

/** Renders `step` of `model` for `flow` into the panels of `ui`. */
export function render(ui, flow, model, notice = '') {
  const s = model.steps[model.cursor];
  ui.code.replaceChildren(...codeLines(flow, model, s));
  ui.source.textContent = flow.source;
  ui.verdict.replaceChildren(...verdict(s));
  ui.why.textContent = s ? s.why || '' : notice || 'Running the module…';
  ui.state.textContent = s && s.state ? s.state : '';
  ui.frames.replaceChildren(...(s ? s.frames || [] : []).map((f, i) => el('li', { text: f, 'data-depth': i })));
  ui.memory.replaceChildren(...(s ? memory(s) : []));
  ui.out.textContent = s && s.out ? s.out : '';
  ui.note.textContent = [model.note, notice].filter(Boolean).join(' ');
  ui.position.textContent = s ? `step ${model.cursor + 1} of ${model.steps.length}${model.live ? ' (running…)' : ''}` : '';
}

function codeLines(flow, model, s) {
  const skip = new Set(model.skip || []);
  return flow.lines.map((line, i) => {
    const current = s && s.line === i;
    const li = el('li', { class: [current ? 'current' : '', skip.has(i) ? 'skipped' : ''].join(' ').trim() || null,
      'aria-current': current ? 'step' : null, 'data-line': i },
    el('code', { text: line.code || ' ' }),
    line.c ? el('span', { class: 'c', text: line.c }) : null);
    return li;
  });
}

function verdict(s) {
  if (!s || s.verdict === undefined) return [];
  return [el('span', { class: `verdict ${s.verdict ? 'true' : 'false'}`, text: `condition: ${s.verdict}` })];
}

function memory(s) {
  const parts = [];
  if (s.pool) parts.push(pool(s.pool));
  for (const b of s.memory || []) parts.push(bufferView(b));
  if (s.table) parts.push(table(s.table));
  return parts;
}

// Which cell indexes to draw: all when few; else the head, a gap, and the
// cells written last.
function windowOf(b) {
  const shown = Math.max(b.used, Math.min(b.size || 0, 16));
  if (shown <= MAX_CELLS) return [[0, shown]];
  const last = b.changed.length ? b.changed[b.changed.length - 1] + 1 : b.used;
  const tailEnd = Math.min(Math.max(last, 40), b.used);
  return [[0, 32], [Math.max(32, tailEnd - 12), tailEnd]];
}

function bufferView(b) {
  const changed = new Set(b.changed);
  const row = el('div', { class: 'cells', role: 'list', 'aria-label': b.label });
  const ranges = windowOf(b);
  ranges.forEach(([from, to], r) => {
    if (r > 0) row.append(el('span', { class: 'gap', text: `… ${fmt(from - ranges[r - 1][1])} B …` }));
    for (let i = from; i < to; i++) {
      const filled = i < b.used && b.state[i] !== CELL.EMPTY;
      const cls = ['cell', STATE_CLASS[filled ? b.state[i] : 0], changed.has(i) ? 'changed' : ''].join(' ').trim();
      row.append(el('span', { class: cls, role: 'listitem', 'data-i': i,
        title: filled ? `${b.kind} [${i}] = 0x${hex([b.cells[i]])}` : `${b.kind} [${i}] (not written)`,
        text: filled ? hex([b.cells[i]]) : '' }));
    }
  });
  const rest = (b.size || 0) - Math.max(...ranges.map((x) => x[1]));
  if (rest > 0) row.append(el('span', { class: 'gap', text: `… ${fmt(rest)} B more` }));
  return el('section', { class: `buffer ${b.kind}${b.released ? ' released' : ''}`, 'data-key': b.key, 'data-kind': b.kind },
    el('h3', { text: b.label + (b.released ? ' — back in the pool' : '') }), row);
}

function pool(p) {
  const box = el('section', { class: 'pool', 'data-kind': p.shared ? 'shared' : 'lockfree' });
  if (p.shared) {
    box.append(el('h3', { text: 'thread slots (one array each, no lock)' }),
      el('div', { class: 'slots' }, ...p.slots.map((x) =>
        el('span', { class: `slot ${x.full ? 'full' : 'empty'}`, text: x.label, title: x.full ? 'holds an array' : 'empty' }))));
  }
  box.append(el('h3', { text: p.shared ? `partitions: ${p.parts} × ${p.perPart} arrays, a lock each (${p.held} held)`
    : `lock-free queue: ${p.cap} cells (${p.held} held)` }));
  const cells = el('div', { class: 'cells parts' });
  for (let i = 0; i < p.cap; i++) {
    if (p.shared && i > 0 && i % p.perPart === 0) cells.append(el('span', { class: 'sep' }));
    cells.append(el('span', { class: `cell ${i < p.held ? 'written' : 'empty'}`, text: i < p.held ? '4K' : '' }));
  }
  box.append(cells, el('p', { class: 'inflight', text: `buffers out with the threads: ${fmt(p.inFlight)}` }));
  box.append(el('dl', { class: 'counters' }, ...p.counters.flatMap(([k, v]) =>
    [el('dt', { text: k }), el('dd', { text: fmt(v), 'data-counter': k })])));
  return box;
}

function table(rows) {
  const cell = (m) => (m ? `${fmt(m.bytesPerCall)} B` : '…');
  return el('table', { class: 'compare' },
    el('thead', {}, el('tr', {}, ...['entry', 'small (17 B)', 'big (100,007 B)', 'document (.NET), small / big']
      .map((t) => el('th', { text: t })))),
    el('tbody', {}, ...rows.map((r) => el('tr', {},
      el('th', { text: r.label }), el('td', { text: cell(r.small) }), el('td', { text: cell(r.big) }),
      el('td', { text: `${r.doc.small} / ${r.doc.big}` })))));
}
