// decode-stream.js -- the values of concatenated messages: from a stream (decodeStream) or
// from one buffer (decodeMultiple).
// Owns: reading chunks from a Node Readable, a WHATWG ReadableStream or an
// (async) iterable; decoding each message as soon as it is complete (in
// place when it lies in one chunk, else from one copy of its bytes); the
// streaming options; absolute offsets in errors. Must not touch: formats
// (decoder.js decodes, framer.js finds where a message ends).
//
// Per chunk: a message that starts in it is decoded in place at once; if it
// runs past the chunk's end (TRUNCATED), its bytes from there on are
// copied into a buffer of the message's own while the framer scans each
// later chunk once, and the message is decoded from that buffer as soon as
// the framer finds its end. No byte is read more than three times (the try
// in place, the framer, the decode), so the work is linear in the input
// whatever the chunk boundaries; memory is the largest message (its buffer
// grows by doubling) plus the chunk in hand.
//
// Each message may be compressed (Lz4Block, Lz4BlockArray): decompress.js
// looks at its top (decodeAt, decodeTop) unless decompress is false. A
// compressed message is framed like any other (it is one MessagePack
// value), so it is decoded once all its bytes are in, in place or from its
// buffer; memory then adds its plain bytes. The value limits (maxBinLength
// ...) apply to the plain message, not to the blocks that carry it.

import { ScratchpackError, codes, decodeError } from './errors.js';
import { decodeDefaults, decodeOptions, undefinedOption } from './decode-options.js';
import { asBytes } from './decoder.js';
import { decodeAt, decodeTop, framingOptions, mayBeCompressed, topEnd } from './decompress.js';
import { Framer } from './framer.js';

const MAX_MESSAGE = 2 ** 53 - 1;

/**
 * Splits off decodeStream's own option (maxMessageLength: the bytes one
 * message may take, LENGTH_LIMIT beyond) and checks the rest as decode's
 * over base. Returns [decode options, maxMessageLength].
 */
export function streamOptions(options, base = decodeDefaults) {
  if (options === undefined || options === null) return [base, MAX_MESSAGE];
  if (typeof options !== 'object') throw new ScratchpackError(codes.INVALID_ARGUMENT, `decode options must be an object, not ${typeof options}`);
  const { maxMessageLength = MAX_MESSAGE, ...rest } = options;
  if (Object.hasOwn(options, 'maxMessageLength') && options.maxMessageLength === undefined) throw undefinedOption('maxMessageLength');
  if (!Number.isSafeInteger(maxMessageLength) || maxMessageLength < 1)
    throw new ScratchpackError(codes.INVALID_ARGUMENT, 'maxMessageLength must be a positive integer');
  return [decodeOptions(rest, base), maxMessageLength];
}

/**
 * An async iterator over the values of the messages in source (a Node
 * Readable, a WHATWG ReadableStream, or an async or sync iterable of
 * Uint8Array, other views or ArrayBuffers), each yielded as soon as its
 * last byte has arrived. Throws INVALID_ARGUMENT now for another source.
 */
export function streamValues(source, opt, maxMessage) {
  return messages(chunksOf(source), opt, maxMessage);
}

/** An iterator over the values of the messages in one buffer (validated now). */
export function bufferValues(bytes, opt) {
  return valuesIn(asBytes(bytes), opt);
}

/** The values of concatenated messages from a stream (see index.d.ts). */
export function decodeStream(source, options) {
  const [opt, maxMessage] = streamOptions(options);
  return streamValues(source, opt, maxMessage);
}

/** The values of concatenated messages in one buffer (see index.d.ts). */
export function decodeMultiple(bytes, options) {
  return bufferValues(bytes, decodeOptions(options));
}

function* valuesIn(src, opt) {
  for (let p = 0; p < src.length;) {
    const v = decodeAt(src, p, opt);
    p = topEnd;
    yield v;
  }
}

async function* messages(chunks, opt, maxMessage) {
  const plainFramer = new Framer(opt, maxMessage);
  // A message that may be compressed is framed with limits for its framing
  // (its bins and ext are blocks, not values: decodeAt checks the plain
  // message's values against opt once it is whole).
  const packedFramer = opt.decompress ? new Framer(framingOptions(opt), maxMessage) : plainFramer;
  let framer = plainFramer;
  let buf = null, used = 0;             // the bytes of a message that spans chunks
  let base = 0;                         // the absolute offset of the chunk's first byte
  for await (const raw of chunks) {
    const chunk = asChunk(raw);
    const n = chunk.length;
    let p = 0;
    while (p < n) {
      if (!framer.inMessage) {          // a message starts here: try it in place
        // ...within maxMessageLength of here: a longer one is cut short
        // there (TRUNCATED), and the framer refuses it as it passes the
        // limit, before it is decoded whole.
        const v = decodeHere(n - p > maxMessage ? chunk.subarray(0, p + maxMessage) : chunk, p, opt, base);
        if (v !== RUNS_ON) {
          if (topEnd - p > maxMessage) throw tooBig(base + p, maxMessage);
          p = topEnd;
          yield v;
          continue;
        }
        framer = mayBeCompressed(chunk, p) ? packedFramer : plainFramer;
        framer.begin(base + p);
      }
      const start = framer.messageAt;
      let end;
      try {
        end = framer.scan(chunk, p, n, base);
      } catch (e) {
        throw earlierError(e, buf, used, chunk.subarray(p, n), opt, start);
      }
      const stop = end < 0 ? n : end;
      if (buf === null || used + stop - p > buf.length)
        buf = grown(buf, used, used + stop - p);
      buf.set(chunk.subarray(p, stop), used);
      used += stop - p;
      p = stop;
      if (end < 0) break;
      const bytes = buf.subarray(0, used);
      buf = null;                       // its own buffer: views of it ('binary: view') stay valid
      used = 0;
      yield decodeMessage(bytes, opt, start);
    }
    base += n;
  }
  if (framer.inMessage) {               // the input ends inside a message
    decodeMessage(buf.subarray(0, used), opt, framer.messageAt);
    throw decodeError(codes.TRUNCATED, base, 'input ends inside a message');
  }
}

const RUNS_ON = Symbol('runs on');

// The framer stopped the message at e (a limit, malformed framing); the
// decoder may find an error before that offset that framing does not see
// (a timestamp's nanoseconds): that one, as decode() of the whole message
// reports it, however the input was cut. The message so far is
// buf[0, used) and the rest of the chunk; only its bytes before e's
// offset are read (an error of a token before it lies there), so the cost
// is bounded by what the framer let through.
function earlierError(e, buf, used, rest, opt, start) {
  if (!(e instanceof ScratchpackError) || !(e.offset > start)) return e;
  const n = Math.min(e.offset - start, used + rest.length);
  const bytes = new Uint8Array(n);
  if (used > 0) bytes.set(buf.subarray(0, Math.min(used, n)));
  if (n > used) bytes.set(rest.subarray(0, n - used), used);
  try {
    decodeMessage(bytes, opt, start);
  } catch (d) {
    if (d instanceof ScratchpackError && d.offset < e.offset && d.code !== codes.TRUNCATED &&
        d.code !== codes.TRAILING_BYTES) return d;
  }
  return e;
}

// The message at chunk[p]: its value, or RUNS_ON when it goes on past the chunk.
function decodeHere(chunk, p, opt, base) {
  try {
    return decodeAt(chunk, p, opt);
  } catch (e) {
    if (e instanceof ScratchpackError && e.code === codes.TRUNCATED) return RUNS_ON;
    throw shifted(e, base);
  }
}

// A whole message's value; its errors at absolute offsets.
function decodeMessage(bytes, opt, at) {
  try {
    return decodeTop(bytes, opt);
  } catch (e) {
    throw shifted(e, at);
  }
}

// A decode error moved from offsets in a message or chunk to offsets in the stream.
function shifted(e, delta) {
  if (!(e instanceof ScratchpackError) || !(e.offset >= 0) || delta === 0) return e;
  const at = e.offset + delta;
  const message = e.message.replace(/\(at byte \d+\)$/, `(at byte ${at})`);
  return new ScratchpackError(e.code, message, { offset: at, cause: e.cause });
}

const tooBig = (at, max) =>
  decodeError(codes.LENGTH_LIMIT, at, `a message of more than ${max} bytes (maxMessageLength)`);

// A message buffer that holds need bytes, keeping the first 'used'.
function grown(buf, used, need) {
  const next = new Uint8Array(Math.max(need, buf === null ? 1024 : 2 * buf.length));
  if (used > 0) next.set(buf.subarray(0, used));
  return next;
}

function asChunk(c) {
  if (c instanceof Uint8Array && c.constructor === Uint8Array && ArrayBuffer.isView(c) && c.length !== 0) return c;   // a Buffer is viewed plain (asBytes)
  if (ArrayBuffer.isView(c) || c instanceof ArrayBuffer ||
      (typeof SharedArrayBuffer === 'function' && c instanceof SharedArrayBuffer)) return asBytes(c);
  throw new ScratchpackError(codes.INVALID_ARGUMENT,
    typeof c === 'string' ? 'decodeStream got text: read the stream as bytes (no encoding)'
      : 'decodeStream needs chunks of bytes (Uint8Array, another typed array or an ArrayBuffer)');
}

// The source's chunks as an async iterable.
function chunksOf(source) {
  if (source && typeof source.getReader === 'function') return readerChunks(source);
  if (source && typeof source[Symbol.asyncIterator] === 'function') return source;
  if (source && typeof source[Symbol.iterator] === 'function' && typeof source !== 'string' &&
      !ArrayBuffer.isView(source)) return source;
  throw new ScratchpackError(codes.INVALID_ARGUMENT,
    'decodeStream needs a Node Readable, a WHATWG ReadableStream or an (async) iterable of Uint8Array' +
    (ArrayBuffer.isView(source) || source instanceof ArrayBuffer ? ' (for one buffer: decodeMultiple)' : ''));
}

// A WHATWG stream through its reader (not every host makes the stream itself
// async-iterable); an iteration stopped early cancels the stream.
async function* readerChunks(stream) {
  const reader = stream.getReader();
  let done = false;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) { done = true; return; }
      yield r.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
