// gen-c: C declarations from a contract file (js/contract-c.js and the CLI).
// The generated header compiling and giving JS's bytes is tests/c/contract_gen.c;
// here: what it declares, and the refusal of every type C cannot hold.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { generateC } from '../../js/contract-c.js';

const root = new URL('../../', import.meta.url);
const file = new URL('tests/c/contracts.json', root);
const doc = JSON.parse(readFileSync(file, 'utf8'));
const one = (fields, keys = 'index') => ({ contracts: { T: { keys, fields } } });

test('the header declares each contract as a struct and its sp_field table', () => {
  const h = generateC(doc);
  assert.match(h, /typedef struct Order \{\n {2}uint32_t id;\n {2}sp_str_field name;/);
  assert.match(h, /SP_MEMBER_KEY\(17, Order, later, SP_F_U16\),/);
  assert.match(h, /SP_MEMBER_KEY\(7, Order, items, SP_F_STRUCT, \.schema = &Item_schema, \.flags = SP_FIELD_ARRAY\),/);
  assert.match(h, /\{ \.name = "Sku", \.offset = offsetof\(Item, sku\), \.type = SP_F_STR \},/);
  assert.ok(h.indexOf('typedef struct Point') < h.indexOf('typedef struct Order'), 'a struct held by value comes first');
  assert.match(generateC(one({ k: { type: 'int8', key: 'a"\\?\u00e9' } }, 'name')), /\.name = "a\\042\\134\\077\\303\\251"/);
});

test('types without a C form are refused, naming the contract and field', () => {
  const refuses = (fields, re, keys) => assert.throws(() => generateC(one(fields, keys)),
    (e) => e.code === 'INVALID_ARGUMENT' && re.test(e.message), String(JSON.stringify(fields)));
  refuses({ a: 'any' }, /contract T, field a: type any has no C form/);
  refuses({ a: { map: ['string', 'int8'] } }, /field a: type \{map/);
  refuses({ a: 'int32?' }, /field a: a nullable int32 has no C form/);
  refuses({ a: [['int8']] }, /an array of arrays/);
  refuses({ a: { type: ['int8'], nullable: true } }, /a nullable array/);
  refuses({ int: 'int8' }, /'int' is not a C identifier/);
  assert.throws(() => generateC({ contracts: { A: { fields: { b: 'B' } }, B: { fields: { a: 'A' } } } }),
    /contain each other by value/);
  assert.doesNotThrow(() => generateC({ contracts: { N: { fields: { kids: ['N'], v: 'string?' } } } }));
});

test('npx scratchpack gen-c writes the header; bad input exits 1 with the reason', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-genc-'));
  try {
    const cli = new URL('js/cli.js', root).pathname;
    const out = join(dir, 'c.h');
    execFileSync(process.execPath, [cli, 'gen-c', file.pathname, '-o', out, '--guard', 'MY_H']);
    assert.match(readFileSync(out, 'utf8'), /#ifndef MY_H\n#define MY_H/);
    assert.equal(execFileSync(process.execPath, [cli, 'gen-c', file.pathname]).toString(), generateC(doc));
    assert.equal(execFileSync(process.execPath, [cli, 'gen-c', file.pathname, '-o', '-'], { cwd: dir }).toString(), generateC(doc), '-o - is stdout');
    assert.ok(!existsSync(join(dir, '-')));
    writeFileSync(join(dir, 'bad.json'), JSON.stringify(one({ a: 'any' })));
    const r = spawnSync(process.execPath, [cli, 'gen-c', join(dir, 'bad.json')]);
    assert.equal(r.status, 1);
    assert.match(r.stderr.toString(), /INVALID_ARGUMENT: contract T, field a/);
    assert.equal(spawnSync(process.execPath, [cli, 'gen-c']).status, 2);
    // Usage and output failures: one line each, exit 2, no stack trace.
    const oneLine = (args, re) => {
      const x = spawnSync(process.execPath, [cli, ...args]);
      const err = x.stderr.toString();
      assert.equal(x.status, 2, `${args.join(' ')}: ${err}`);
      assert.match(err, re);
      assert.equal(err.trim().split('\n').length, 1, err);
      assert.equal(x.stdout.length, 0);
    };
    oneLine(['gen-c', file.pathname, '-o'], /^scratchpack: -o needs a file name/);
    oneLine(['gen-c', file.pathname, '--guard'], /^scratchpack: --guard needs a name/);
    oneLine(['gen-c', file.pathname, '-o', '--guard', 'X'], /-o needs a file name/);
    oneLine(['gen-c', file.pathname, '-o', join(dir, 'no', 'such', 'dir.h')], /^scratchpack: cannot write .*dir\.h: ENOENT/);
    oneLine(['gen-c', file.pathname, '-o', dir], /^scratchpack: cannot write .*: EISDIR/);
    writeFileSync(join(dir, 'bin.json'), Uint8Array.of(0x93, 0x01, 0xff, 0xfe, 0x0a));
    oneLine(['gen-c', join(dir, 'bin.json')], /^scratchpack gen-c: .*bin\.json is not valid JSON \([\x20-\x7e]*\)\n$/);
    // A refusal naming a field whose name holds a newline stays on one line.
    writeFileSync(join(dir, 'nl.json'), '{"contracts":{"A":{"keys":"index","fields":{"line\\nbreak":"int32"}}}}');
    const nl = spawnSync(process.execPath, [cli, 'gen-c', join(dir, 'nl.json')]);
    assert.equal(nl.status, 1);
    assert.match(nl.stderr.toString(), /^scratchpack gen-c: INVALID_ARGUMENT: .*line\\nbreak.*\n$/);
    assert.equal(nl.stderr.toString().trim().split('\n').length, 1);
    if (existsSync('/dev/full')) {
      const full = spawnSync('sh', ['-c', `"${process.execPath}" "${cli}" gen-c "${file.pathname}" > /dev/full`]);
      assert.equal(full.status, 2);
      assert.match(full.stderr.toString(), /^scratchpack: cannot write stdout: ENOSPC[^\n]*\n$/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('each contract gets <Name>_init: zeroes and the defaults C can hold; other defaults are refused', () => {
  const h = generateC(doc);
  assert.match(h, /static inline void Settings_init\(Settings \*v\) \{\n {2}memset\(v, 0, sizeof \*v\);\n {2}v->level = \(uint8_t\)1;\n {2}v->ratio = 0x1\.0000000000000p-1f;\n {2}v->name = \(sp_str_field\)\{ \(char \*\)"anon \\303\\251", 7, 0 \};\n {2}v->on = true;\n {2}v->floor = INT64_C\(-9007199254740991\);\n {2}v->half = 0x1\.0000000000000p0f;\n {2}v->top = 0x1\.fffffe0000000p127f;\n {2}Point_init\(&v->at\);\n\}/);
  assert.match(generateC(one({ d: { type: 'float64', default: -0 }, n: { type: 'int32', default: -2147483648 } })),
    /v->d = -0\.0;\n {2}v->n = INT32_MIN;/);
  const refuses = (fields, re) => assert.throws(() => generateC(fields.contracts ? fields : one(fields)),
    (e) => e.code === 'INVALID_ARGUMENT' && re.test(e.message), JSON.stringify(fields));
  refuses({ a: { type: ['int8'], default: [1] } }, /field a: a default for an array has no C form/);
  refuses({ contracts: { P: { fields: { x: 'int8' } }, T: { fields: { p: { type: 'P', default: { x: 1 } } } } } },
    /contract T, field p: a default for a contract has no C form/);
  // An infinity is a float32's own; a finite number past its range is a mistake (C# refuses 1e40f too).
  assert.match(generateC(one({ f: { type: 'float32', default: -Infinity } })), /v->f = -INFINITY;/);
  refuses({ f: { type: 'float32', default: 1e40 } }, /field f: the default is 1e\+40, past float32's range/);
});

test('gen-c refuses contract names whose C names meet another contract\'s or the library\'s', () => {
  const refuses = (contracts, re) => assert.throws(() => generateC({ contracts }),
    (e) => e.code === 'INVALID_ARGUMENT' && re.test(e.message), JSON.stringify(contracts));
  refuses({ A: { fields: { x: 'int8' } }, A_schema: { fields: { y: 'int8' } } }, /A_schema is also contract A's/);
  refuses({ B_init: { fields: { x: 'int8' } }, B: { fields: { y: 'int8' } } }, /B_init is also contract B_init's/);
  refuses({ sp_schema: { fields: { x: 'int8' } } }, /sp_ and SP_ names are scratchpack's/);
  assert.throws(() => generateC({ contracts: { G: { fields: { x: 'int8' } } } }, { guard: 'G' }), /G is also the include guard/);
});

test('gen-c refuses names the header\'s includes declare or keep (size_t, memset, atomic_int, NAN, linux, __x)', () => {
  const refuses = (contracts, re) => assert.throws(() => generateC({ contracts }),
    (e) => e.code === 'INVALID_ARGUMENT' && re.test(e.message), JSON.stringify(contracts));
  for (const name of ['size_t', 'int32_t', 'memset', 'strlen', 'sqrt', 'sinf', 'floorl', 'offsetof', 'index', 'bzero', 'gamma',
    'j0', 'atomic_int', 'atomic_flag', 'memory_order', 'memory_order_relaxed', 'max_align_t'])
    refuses({ [name]: { fields: { x: 'int8' } } }, new RegExp(`contract name '${name}' is declared by the C headers`));
  for (const name of ['NAN', 'NULL', 'INT8_MAX', 'UINT_LEAST16_MAX', 'SIZE_MAX', 'M_PI', 'ATOMIC_FLAG_INIT', 'linux', 'unix'])
    refuses({ [name]: { fields: { x: 'int8' } } }, /is a macro of the C headers/);
  for (const name of ['_Foo', '__x'])
    refuses({ [name]: { fields: { x: 'int8' } } }, /begin with __ or _ and a capital/);
  refuses({ A: { fields: { NULL: 'int8' } } }, /field NULL: the member name 'NULL' is a macro/);
  // scratchpack.h's own macros (SP_FIELD_ARRAY...) and guard, and names the include guard meets.
  refuses({ A: { fields: { SP_FIELD_ARRAY: 'int8' } } }, /member name 'SP_FIELD_ARRAY': sp_ and SP_ names are scratchpack's/);
  refuses({ SCRATCHPACK_H: { fields: { x: 'int8' } } }, /contract name 'SCRATCHPACK_H': .* SCRATCHPACK_H too/);
  assert.throws(() => generateC({ contracts: { A: { fields: { x: 'int8' } } } }, { guard: 'x' }), /field x: the member name is the include guard's/);
  for (const guard of ['memset', 'uint8_t'])
    assert.throws(() => generateC({ contracts: { A: { fields: { x: 'int8' } } } }, { guard }), /is declared by the C headers the output includes/);
  // A key C's NUL-terminated field names would cut short.
  refuses({ K: { keys: 'name', fields: { a: { type: 'int8', key: 'a\u0000b' } } } }, /field a: a key with a NUL character has no C form/);
  refuses({ A: { fields: { ATOMIC_INT_LOCK_FREE: 'int8' } } }, /is a macro/);
  refuses({ A: { fields: { _Bad: 'int8' } } }, /field _Bad: .*begin with __ or _ and a capital/);
});

test('ordinary names pass gen-c, and the header compiles (Point_t, Log, Time; members index, time, memset, log)', { skip: !existsSync('/usr/bin/cc') && 'no cc' }, () => {
  const h = generateC({ contracts: {
    Point_t: { keys: 'index', fields: { x: 'int32', y: 'int32' } },
    Log: { fields: { index: 'uint32', time: 'timestamp', memset: 'int8', log: 'string', size: 'uint16', _x: 'bool' } },
    Time: { fields: { at: 'Point_t', logs: ['Log'], abs: 'float64' } },
  } });
  const dir = mkdtempSync(join(tmpdir(), 'sp-genc-names-'));
  try {
    writeFileSync(join(dir, 'c.h'), h);
    writeFileSync(join(dir, 'c.c'), '#define SP_CONTRACTS_IMPLEMENTATION\n#include "c.h"\nint main(void) { Log l; Log_init(&l); return (int)l.index; }\n');
    const include = new URL('src/include', root).pathname;
    for (const std of [[], ['-std=c11']]) {
      const r = spawnSync('cc', [...std, '-fsyntax-only', '-Wall', '-Werror', `-I${include}`, join(dir, 'c.c')]);
      assert.equal(r.status, 0, r.stderr.toString());
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
