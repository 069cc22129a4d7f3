// The README's two options tables list exactly the options the package
// takes, with the defaults it applies (so the README and the code agree on,
// among others, the default `threads`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { decodeDefaults } from '../../js/decode-options.js';
import { normalize } from '../../js/scratchpack.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

// The rows of the table after `heading` (the line before its header row), as { names, default }.
function table(heading) {
  const at = readme.indexOf(heading);
  assert.ok(at >= 0, `README has no "${heading}"`);
  const m = /\| option \| default \| meaning \|\n\| --- [^\n]*\n((?:\|[^\n]*\n)+)/.exec(readme.slice(at));
  assert.ok(m, `no options table after "${heading}"`);
  return m[1].trim().split('\n').map((row) => {
    const cells = row.split('|').slice(1, -1).map((c) => c.trim());
    const names = [...cells[0].replace(/\([^)]*\)/g, '').matchAll(/`(\w+)`/g)].map((x) => x[1]);   // not what a note in brackets names
    return { names, dflt: cells[1] };
  });
}

// The instance options the package knows, from its own refusal of an unknown one.
function instanceOptions() {
  try {
    normalize({ notAnOption: 1 });
  } catch (e) {
    return /known: (.*)$/.exec(e.message)[1].split(', ');
  }
  assert.fail('normalize took an unknown option');
}

test("createScratchpack's options: the README's table lists each once, with the defaults the code applies", () => {
  const rows = table('`createScratchpack(options)`');
  assert.deepEqual(rows.flatMap((r) => r.names).sort(), instanceOptions().sort());
  const given = normalize({});
  const dflt = (name) => rows.find((r) => r.names.includes(name)).dflt;
  assert.equal(dflt('threads'), `\`${given.threads}\``);
  assert.equal(dflt('scratchSize'), `\`${given.scratchSize}\``);
  assert.equal(dflt('wasm'), `\`'${given.wasm}'\``);
  assert.equal(dflt('cacheLimit'), `${given.cacheLimit / (1 << 20)} MiB`);
  assert.equal(dflt('compression'), "`'none'`");
  assert.equal(dflt('results'), `\`'${given.results}'\` under Node, else \`'own'\``);
  assert.deepEqual(normalize({ compression: 'none' }).compression, given.compression);
});

test("decode's options: the README's table lists each once, with the defaults the code applies", () => {
  const rows = table('`decode(bytes, options)`');
  const names = rows.flatMap((r) => r.names);
  assert.deepEqual([...names].sort(), [...Object.keys(decodeDefaults), 'maxMessageLength'].sort());
  const dflt = (name) => rows.find((r) => r.names.includes(name)).dflt;
  for (const k of ['int64', 'maps', 'binary']) assert.equal(dflt(k), `\`'${decodeDefaults[k]}'\``, k);
  for (const k of ['typedArrays', 'decompress', 'maxDepth']) assert.equal(dflt(k), `\`${decodeDefaults[k]}\``, k);
  assert.equal(dflt('maxStrLength'), '2^32 − 1');
  assert.equal(decodeDefaults.maxStrLength, 2 ** 32 - 1);
  assert.equal(dflt('maxDecompressedLength'), `${decodeDefaults.maxDecompressedLength / (1 << 20)} MiB`);
});
