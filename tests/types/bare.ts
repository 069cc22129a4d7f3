// bare.ts -- the declarations with neither DOM nor Node types, on the
// ES2020 lib, with exactOptionalPropertyTypes (tsc -p
// tests/types/tsconfig.bare.json): a Deno-, worker- or library-style setup.
// Signals and streams are typed by their shapes, so any host's fit.

import {
  createScratchpack, decode, decodeMultiple, decodeStream, ScratchpackError,
  type AbortSignalLike, type NodeWritableLike, type ReadableStreamLike, type WritableStreamLike,
} from 'scratchpack';

interface Row { id: number; label: string; values: readonly number[] }
const rows: readonly Row[] = [{ id: 1, label: 'a', values: [1, 2] }];

const sp = await createScratchpack({ threads: 0, wasm: undefined });
const bytes: Uint8Array<ArrayBuffer> = sp.encode(rows);
decode(bytes, { maxDepth: 8 });

let aborted = false;
const signal: AbortSignalLike = {
  get aborted() { return aborted; },
  addEventListener(_type, listener) { aborted = true; listener(); },
  removeEventListener() {},
};
await sp.encodeAsync(new Float64Array(4), { signal });
await sp.encodeAsync(new Float64Array(4), { signal: undefined });

const chunks: Uint8Array<ArrayBuffer>[] = [];
const stream: WritableStreamLike = {
  getWriter: () => ({ write: async (c) => { chunks.push(c); }, releaseLock() {} }),
};
await sp.encodeToStream(rows, stream);
const node: NodeWritableLike = { write: (c) => chunks.push(c) > 0, on: () => node, off: () => node, once: () => node };
await sp.encodeToStream(rows, node);

// decodeStream over any host's readable stream, an async iterable, or chunks in an array.
const readable: ReadableStreamLike = {
  getReader: () => ({
    read: async () => ({ done: true }),
    releaseLock() {},
    cancel: async () => {},
  }),
};
for await (const v of decodeStream(readable, { maxMessageLength: 1024 })) void v;
for await (const v of sp.decodeStream([bytes, bytes.buffer])) void v;
const all: unknown[] = [...decodeMultiple(bytes)];
void all;

try {
  // @ts-expect-error an explicit undefined replaces the default and is refused (INVALID_ARGUMENT)
  decode(bytes, { int64: undefined });
} catch (e) {
  if (e instanceof ScratchpackError && e.code === 'INVALID_ARGUMENT') chunks.length = 0;
}
sp.close();
