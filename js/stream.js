// stream.js -- hands encoded chunks to a Node Writable or a WHATWG WritableStream.
// Owns: back-pressure and error handling of both stream kinds. Must not
// touch: encoding; it gets finished chunks the caller may keep.

import { ScratchpackError, codes } from './errors.js';

/** Writes chunks in order, honouring back-pressure; resolves when all were accepted. */
export async function writeChunks(writable, chunks) {
  if (writable && typeof writable.getWriter === 'function') return writeWhatwg(writable, chunks);
  if (writable && typeof writable.write === 'function' && typeof writable.once === 'function')
    return writeNode(writable, chunks);
  throw new ScratchpackError(codes.INVALID_ARGUMENT,
    'encodeToStream needs a Node Writable or a WHATWG WritableStream');
}

async function writeWhatwg(stream, chunks) {
  const w = stream.getWriter();
  try {
    for (const c of chunks) await w.write(c);
  } finally {
    w.releaseLock();
  }
}

function writeNode(stream, chunks) {
  return new Promise((resolve, reject) => {
    let i = 0;
    const fail = (e) => { cleanup(); reject(e); };
    const cleanup = () => {
      stream.off('error', fail);
      stream.off('drain', next);
      stream.off('close', closed);
    };
    const closed = () => fail(new ScratchpackError(codes.CANCELLED, 'the stream closed before the message was written'));
    function next() {
      while (i < chunks.length) {
        if (stream.destroyed || stream.writableEnded) { closed(); return; }
        if (!stream.write(chunks[i++])) return;      // wait for 'drain'
      }
      cleanup();
      resolve();
    }
    stream.on('error', fail);
    stream.on('drain', next);
    stream.on('close', closed);
    next();
  });
}
