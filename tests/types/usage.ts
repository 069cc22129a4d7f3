// usage.ts -- the package as a TypeScript user on Node writes it, imported
// by name. npm test type-checks it (tsc -p tests/types: --strict, --module
// nodenext, DOM and Node types); it is never run. Every line must check,
// and every line under `@ts-expect-error` must fail to (an unused one is an
// error), so the declarations neither refuse real code nor accept misuse.

import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import {
  contract, Contract, type Infer, type InferInput,
  codes, createScratchpack, decode, decodeMultiple, decodeStream, encode, encodeInto, encodeToStream, encodeView, Ext,
  Lease, ready, Scratchpack, ScratchpackError,
  type Compression, type DecodeOptions, type DecodeStreamOptions, type Decoded, type Encodable, type EncodableValue,
  type Extension,
  type ScratchpackErrorCode,
} from 'scratchpack';

// ---- values as applications declare them -----------------------------------

interface User {
  id: number;
  name: string;
  email?: string;
  tags: readonly string[];
  createdAt: Date;
  avatar: Uint8Array | null;
}

class Point {
  #secret = 1;                          // never encoded: not an own enumerable property
  private cache: number[] = [];         // encoded (an own property) though the type hides it
  constructor(public x: number, public y: number) {}
  get norm(): number { return Math.hypot(this.x, this.y); }
  scale(k: number): Point { return new Point(this.x * k, this.y * k + this.#secret - 1); }
}

interface Tree { value: number; children: Tree[] }
type Shape = { kind: 'circle'; r: number } | { kind: 'rect'; w: number; h: number };
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonReadonly = null | boolean | number | string | readonly JsonReadonly[] | { readonly [key: string]: JsonReadonly };

const user: User = { id: 1, name: 'Ada', tags: ['admin'], createdAt: new Date(0), avatar: null };
const users: readonly User[] = [user];
const record: Record<string, unknown> = { a: 1, b: [true, 'x'] };
const tree: Tree = { value: 1, children: [{ value: 2, children: [] }] };
const shapes: Shape[] = [{ kind: 'circle', r: 1 }];
const pair: readonly [number, string] = [1, 'one'];
const doc: Json = { list: [1, 'a', { deep: [null] }] };
const frozen: JsonReadonly = doc;
const anything: any = JSON.parse('{"x": 1}');
const something: unknown = anything;

// ---- encode -----------------------------------------------------------------

const sp: Scratchpack = await createScratchpack({
  threads: 1, scratchSize: 4096, pool: { kind: 'lockfree', maxLength: 1 << 20 }, limits: { maxDepth: 64 },
  maxMemory: 512 * 1024 * 1024, cacheLimit: Infinity,
});
// @ts-expect-error a misspelt option (it is INVALID_ARGUMENT at run time too)
await createScratchpack({ trheads: 2 });
const ownResults: 'pooled' | 'own' = (await createScratchpack({ results: 'own' })).results;
void ownResults;
// @ts-expect-error results are 'pooled' or 'own'
await createScratchpack({ results: 'shared' });
const freed: number = sp.trim();
const { heap: { size, max }, pool: { cachedBytes }, leaseBytes } = sp.stats();
void [freed, size, max, cachedBytes, leaseBytes];

const bytes: Uint8Array<ArrayBuffer> = sp.encode(user);     // over an ArrayBuffer (pooled or its own): a BufferSource
const response = new Response(sp.encode(users));
const blob = new Blob([sp.encode(record)]);
await crypto.subtle.digest('SHA-256', sp.encode(tree));

sp.encode(new Point(1, 2));
sp.encode(shapes);
sp.encode(pair);
sp.encode(doc);
sp.encode(frozen);
sp.encode(new Map<Json, Json[]>());
sp.encode(anything);
sp.encode(something);                  // checked when encoded
sp.encode(new Map<string, User>([['ada', user]]));
sp.encode(new Map<number, readonly number[]>([[1, [2, 3]]]));
sp.encode([1, 'two', null, undefined, true, 3n, new Date(), new Ext(5, [1, 2, 3])] as const);
sp.encode({ bin: new Uint8Array(4), f64: new Float64Array(2), raw: new ArrayBuffer(8), dv: new DataView(new ArrayBuffer(2)) });
sp.encode(Buffer.from('hello'));
sp.encode(new SharedArrayBuffer(16));
sp.encode({ nested: { deeper: [{ ok: true, at: new Date() }] } } as const);

// Your own values typed as Encodable, and a function generic in the value.
const mixed: Encodable[] = [user, new Point(3, 4), users, record, tree, 'text', 7];
sp.encode(mixed);
function send(value: Encodable): number { return sp.encode(value).length; }
send(user);
function frame<T>(value: EncodableValue<T>): Uint8Array<ArrayBuffer> {
  const body = sp.encode(value);
  const out = new Uint8Array(body.length + 4);
  new DataView(out.buffer).setUint32(0, body.length);
  out.set(body, 4);
  return out;
}
frame(user);
frame([new Point(0, 0)]);

// Into a buffer you keep (any Uint8Array: a Buffer, shared memory).
const target = Buffer.alloc(1024);
const n: number = sp.encodeInto(user, target);
sp.encodeInto(users, new Uint8Array(new SharedArrayBuffer(256)), n);

// A lease: a view of the module's memory, valid until release().
const lease: Lease = sp.encodeView(user);
const view: Uint8Array = lease.bytes;
const owned: Uint8Array<ArrayBuffer> = lease.bytes.slice();
new Response(owned);
if (lease.live) lease.release();

// Streams: a Node Writable, a WHATWG WritableStream.
const written: number = await sp.encodeToStream(users, createWriteStream('/dev/null'));
await sp.encodeToStream(user, new Writable({ write(_chunk, _enc, done) { done(); } }));
await sp.encodeToStream(record, new WritableStream<Uint8Array>({ write(chunk) { void chunk.byteLength; } }));
await sp.encodeToStream(tree, new WritableStream());

// On a worker pthread, cancellable.
const f64: Uint8Array<ArrayBuffer> = await sp.encodeAsync(new Float64Array(1000), { signal: AbortSignal.timeout(5000) });
const controller = new AbortController();
await sp.encodeAsync(new Int32Array(10), { signal: controller.signal });
await sp.encodeAsync(user);
new Response(f64);

// ---- decode -----------------------------------------------------------------

const back = decode(bytes) as User;
const name: string = back.name;
const fromFile = sp.decode(readFileSync('/dev/null'));
decode(bytes.buffer);
decode(new DataView(bytes.buffer));

const options: DecodeOptions = { int64: 'bigint', maps: 'map', maxDepth: 32, maxStrLength: 1 << 20 };
sp.decode(bytes, options);

const value = sp.decode(bytes) as Decoded;
if (value instanceof Uint8Array) new Response(value);          // bin owns its buffer
if (value instanceof Map) for (const [k, v] of value) void [k, v];
if (value instanceof Ext) { const t: number = value.type; void t; }
if (Array.isArray(value)) value.forEach((x) => void x);

const ints = sp.decode(sp.encode(new Int32Array([1, 2, 3])), { typedArrays: Int32Array });
if (ints instanceof Int32Array) ints.reduce((a, b) => a + b, 0);
const auto = decode(bytes, { typedArrays: 'auto' }) as Decoded;
if (auto instanceof Float64Array) new Response(auto);

// Concatenated messages: from a Node Readable, a WHATWG stream, an async iterable; or one buffer.
for await (const event of decodeStream(createReadStream('/dev/null'), { maxMessageLength: 1 << 20 })) void (event as Decoded);
for await (const event of sp.decodeStream(new ReadableStream<Uint8Array>(), { maxArrayLength: 10 })) void event;
async function* chunks(): AsyncGenerator<Uint8Array> { yield bytes; }
const first: IteratorResult<unknown> = await decodeStream(chunks())[Symbol.asyncIterator]().next();
for (const row of decodeMultiple(readFileSync('/dev/null'))) void row;
const rows: unknown[] = [...sp.decodeMultiple(bytes.buffer, { int64: 'bigint' })];
const streamOptions: DecodeStreamOptions = { maxMessageLength: 4096, typedArrays: 'auto' };
void [first, rows, streamOptions];

const views = sp.decode(bytes, { binary: 'view' }) as Decoded<Uint8Array>;
if (views instanceof Uint8Array) {
  // @ts-expect-error a view of the input may be shared memory: not a BodyInit
  new Response(views);
}

// ---- extension types ---------------------------------------------------------

const pointExt: Extension<Point> = {
  type: 7, class: Point,
  encode: (p) => Uint8Array.of(p.x, p.y),
  decode: (d) => new Point(d[0] ?? 0, d[1] ?? 0),
};
class Money { constructor(readonly cents: bigint) {} }
const money: Extension<Money> = {
  type: 8, class: Money,
  encode(m) { const b = new Uint8Array(8); new DataView(b.buffer).setBigInt64(0, m.cents); return b; },
  decode(d) { return new Money(new DataView(d.buffer, d.byteOffset, 8).getBigInt64(0)); },
};
const withExt = await createScratchpack({ extensions: [pointExt, money] });
const pointBytes: Uint8Array<ArrayBuffer> = withExt.encode([new Point(1, 2), { price: new Money(250n) }]);
const backPoint = decode(pointBytes, { extensions: [pointExt, money] }) as [Point, { price: Money }];
void backPoint[1].price.cents;
void withExt.decode(pointBytes, { extensions: [] });
for (const v of decodeMultiple(pointBytes, { extensions: [pointExt] })) void v;
for await (const v of decodeStream(chunks(), { extensions: [pointExt], maxMessageLength: 1024 })) void v;
const extOptions: DecodeOptions = { extensions: [money] };
void extOptions;
// @ts-expect-error encode must give bytes, not an array of numbers
await createScratchpack({ extensions: [{ type: 7, class: Point, encode: (p: Point) => [p.x, p.y], decode: () => 0 }] });
// @ts-expect-error class is a constructor, not an instance
decode(bytes, { extensions: [{ type: 1, class: new Point(1, 2), encode: () => new Uint8Array(0), decode: () => 0 }] });
// @ts-expect-error the encode of an Extension<Money> takes a Money
const wrongExt: Extension<Money> = { ...money, encode: (p: Point) => Uint8Array.of(p.x) };
void wrongExt;

// ---- errors -----------------------------------------------------------------

try {
  sp.decode(Uint8Array.of(0x92, 0x01));
} catch (e) {
  if (e instanceof ScratchpackError) {
    const code: ScratchpackErrorCode = e.code;
    const at: number | undefined = e.offset;   // undefined where there is no byte to name
    const path: string | null = e.path;
    if (e.code === codes.TRUNCATED) console.log('wait for more bytes after', at);
    switch (e.code) {
      case 'TRUNCATED': break;
      default: console.log(code, path, e.cause, e.message);
    }
    // @ts-expect-error no such code
    if (e.code === 'TRUNCATE') console.log(e);
  }
}
const mine = new ScratchpackError(codes.INVALID_ARGUMENT, 'checked by my wrapper', { cause: new Error('x') });
void mine;

// ---- misuse -----------------------------------------------------------------

const handlers: Record<string, () => void> = { onClick() {} };

// @ts-expect-error a function never encodes
sp.encode(() => 1);
// @ts-expect-error a class is a function
sp.encode(Point);
// @ts-expect-error a symbol
sp.encode(Symbol('s'));
// @ts-expect-error a Set: convert it to an Array
sp.encode({ tags: new Set(['a']) });
// @ts-expect-error a Promise: await it first
sp.encode({ user: Promise.resolve(user) });
// @ts-expect-error a function in an array
sp.encode([1, () => 2]);
// @ts-expect-error a dictionary of functions
sp.encode(handlers);
// @ts-expect-error a Map of symbols
sp.encode(new Map([[1, Symbol('x')]]));
// @ts-expect-error a RegExp
sp.encode({ pattern: /x/ });
// @ts-expect-error a WeakMap
sp.encodeView(new WeakMap());
// @ts-expect-error the same checks on every entry
frame(new Set([1]));
// @ts-expect-error encodeInto takes a Uint8Array
sp.encodeInto(user, new ArrayBuffer(16));
// @ts-expect-error not a stream: no on/once/off
await sp.encodeToStream(user, { write: () => true });
// @ts-expect-error a stream of strings
await sp.encodeToStream(user, new WritableStream<string>());
// @ts-expect-error not a signal
await sp.encodeAsync(new Float64Array(1), { signal: controller });
// @ts-expect-error a lease's view may be a SharedArrayBuffer's: not a BodyInit
new Response(lease.bytes);
// @ts-expect-error read-only
lease.bytes = new Uint8Array(1);
const { bytes: detachedBytes, release } = sp.encodeView(user);
void detachedBytes.length;
release();                                   // works detached
{
  using scoped = sp.encodeView(user);        // released at the end of the block
  void scoped.bytes;
}
lease[Symbol.dispose]();
// @ts-expect-error read-only
lease.release = () => {};
const { encode: unbound } = sp;
// @ts-expect-error so does encode()
unbound(user);
// @ts-expect-error only encodeView makes leases
new Lease();
// @ts-expect-error only createScratchpack makes a Scratchpack
new Scratchpack();
// @ts-expect-error decode returns unknown until you say what it is
decode(bytes).name;
// @ts-expect-error decode takes bytes
decode([0x92, 0x01]);
// @ts-expect-error no such int64 mode
decode(bytes, { int64: 'big' });
// @ts-expect-error not a typed array constructor
decode(bytes, { typedArrays: Array });
// @ts-expect-error one buffer is decodeMultiple's
decodeStream(bytes);
// @ts-expect-error a stream of strings
decodeStream(new ReadableStream<string>());
// @ts-expect-error decodeMultiple takes bytes, not a stream
decodeMultiple(createReadStream('/dev/null'));
// @ts-expect-error maxMessageLength is a number of bytes
decodeStream(chunks(), { maxMessageLength: '1 MB' });
// @ts-expect-error no such build
await createScratchpack({ wasm: 'simd' });
// @ts-expect-error a shared pool has no perBucket
await createScratchpack({ pool: { kind: 'shared', perBucket: 4 } });
// @ts-expect-error an Ext type is a number
new Ext('5', [1]);

// ---- compression ----------------------------------------------------------------

const packed: Scratchpack = await createScratchpack({ compression: 'lz4blockarray', limits: { maxDecompressedLength: 1 << 20 } });
const mode: Compression = packed.compression;
const small: Uint8Array<ArrayBuffer> = packed.encode(users);
decode(small, { decompress: false, maxDecompressedLength: 1 << 24 });
decodeStream(chunks(), { decompress: true });
// @ts-expect-error lz4 is not one of the layouts
await createScratchpack({ compression: 'lz4' });
// @ts-expect-error decompress is a boolean
decode(small, { decompress: 'no' });
void mode;
packed.close();

// ---- the module-level entries (the default instance) ---------------------------

await ready();
const plain: Uint8Array<ArrayBuffer> = encode(users);
const into: number = encodeInto({ id: 1 }, new Uint8Array(64), 2);
const leased: Lease = encodeView([1, 'two']);
leased.release();
const streamed: Promise<number> = encodeToStream(users, createWriteStream('/dev/null'));
const notReady: ScratchpackErrorCode = codes.NOT_READY;
new Response(encode({ body: true }));                  // its own ArrayBuffer: a BufferSource
// @ts-expect-error a function is not encodable
encode(() => 1);
// @ts-expect-error the target is a Uint8Array
encodeInto(1, new ArrayBuffer(8));
// @ts-expect-error ready takes no options
await ready({ threads: 2 });
void [plain, into, streamed, notReady];

void [response, blob, view, written, name, fromFile];
sp.close();

// ---- typed contracts ---------------------------------------------------------------

const CPoint = contract({ x: 'int32', y: 'int32' }, { keys: 'index' });
const CRec = contract({
  id: 'uint32', name: 'string', score: 'float64', tags: ['string'], born: 'timestamp', blob: 'bin', pos: CPoint,
  extra: 'any', note: 'string?', big: 'int64', ints: 'int32[]', counts: { map: ['string', 'uint16'] },
  byId: { map: ['int32', 'string'] }, maybe: { type: CPoint, nullable: true }, lvl: { type: 'uint8', default: 1, key: 'level' },
}, { keys: 'name' });
type CRec = Infer<typeof CRec>;
const crec: CRec = {
  id: 1, name: 'n', score: 1.5, tags: ['a'], born: new Date(), blob: new Uint8Array(1), pos: { x: 1, y: 2 },
  extra: { anything: [1] }, note: null, big: 5n, ints: Int32Array.of(1), counts: { a: 1 }, byId: new Map([[1, 'one']]),
  maybe: null, lvl: 2,
};
const cid: number = crec.id;
const cnote: string | null = crec.note;
const cbig: bigint = crec.big;
const cx: number = crec.pos.x;
void cid; void cnote; void cbig; void cx;
const crecBytes: Uint8Array<ArrayBuffer> = CRec.encode(crec);
const crecBack: CRec = CRec.decode(crecBytes);
// @ts-expect-error: a string where the contract has a uint32
CRec.encode({ ...crec, id: 'one' });
// @ts-expect-error: tags is string[]
const ctags: number[] = crecBack.tags;
void ctags;
// @ts-expect-error: not a type of the vocabulary
contract({ a: 'int33' });
const CNum = contract({ big: 'uint64' }, { keys: 'index', int64: 'number' });
const cbn: number = CNum.decode(new Uint8Array()).big;
void cbn;
const CList = CRec.array();
const clist: CRec[] = CList.decode(CList.encode([crec]));
void clist;
const cIsContract: boolean = CRec instanceof Contract;
void cIsContract;
// 'T[]' for non-numeric names is an array as [T] is; 'T?[]' of nullables, 'T[]?' a nullable array.
const CArr = contract({ tags: 'string[]', maybe: 'string?[]', opt: 'bool[]?', ints: 'int32[]' });
const carr = CArr.decode(CArr.encode({ tags: ['a'], maybe: ['b', null], opt: null, ints: [1, 2] }));
const carrTags: string[] = carr.tags;
const carrMaybe: (string | null)[] = carr.maybe;
const carrOpt: boolean[] | null = carr.opt;
const carrInts: Int32Array = carr.ints;
void carrTags; void carrMaybe; void carrOpt; void carrInts;
// @ts-expect-error: tags holds strings
CArr.encode({ tags: [1], maybe: [], opt: null, ints: [] });

const spc = await createScratchpack();
const crec2: CRec = spc.decode(spc.encode(crec, { contract: CRec }), { contract: CRec });
void crec2;
spc.encodeInto(crec, new Uint8Array(100), 0, { contract: CRec });
spc.encodeInto(crec, new Uint8Array(100), { contract: CRec });
spc.encodeView(crec, { contract: CRec }).release();
await spc.encodeAsync(crec, { contract: CRec });
await spc.encodeAsync(crec, { contract: CRec, signal: AbortSignal.timeout(5000) });
const listOut: WritableStream<Uint8Array> = new WritableStream();
const listSent: number = await spc.encodeToStream([crec, crec], listOut, { contract: CList });   // element by element
void listSent;
const crec3: CRec = decode(crecBytes, { contract: CRec, maxDepth: 10 });
const crecTop: Uint8Array<ArrayBuffer> = encode(crec, { contract: CRec });
encodeInto(crec, new Uint8Array(100), { contract: CRec });
encodeView(crec, { contract: CRec }).release();
void crecTop;
void crec3;
for (const r of decodeMultiple(crecBytes, { contract: CRec })) { const n: string = r.name; void n; }
for await (const r of decodeStream([crecBytes], { contract: CRec })) { const n: string = r.name; void n; }
// @ts-expect-error: the value is not the contract's
spc.encode({ id: 1 }, { contract: CRec });
// Encode takes more than decode gives: int64 as a number, a plain array for
// a typed array, any view or ArrayBuffer for bin, and leaves out fields with
// a default or nullable ones (docs/contracts.md).
const cin: InferInput<typeof CRec> = {
  id: 1, name: 'n', score: 1.5, tags: ['a'], born: new Date(), blob: new ArrayBuffer(2), pos: { x: 1, y: 2 },
  extra: 1, big: 5, ints: [1, 2], counts: {}, byId: new Map(),
};
CRec.encode(cin);
encode({ ...cin, blob: new DataView(new ArrayBuffer(1)), big: 7n, note: undefined }, { contract: CRec });
spc.encodeInto(cin, new Uint8Array(100), { contract: CRec });
await spc.encodeAsync([cin], { contract: CList });
// @ts-expect-error: id has no default: encode needs it
CRec.encode({ ...cin, id: undefined });
// @ts-expect-error: a string for a typed array
encode({ ...cin, ints: ['1'] }, { contract: CRec });
const cinBack: CRec = CRec.decode(CRec.encode(cin));   // decode gives the full value
void cinBack;
const cfile = contract({ contracts: { P: { keys: 'index', fields: { x: 'int32' } } } });
const cP: Contract<unknown> | undefined = cfile['P'];
void cP;
