// index.js -- the package's public surface; it only re-exports.
export { createScratchpack, Scratchpack } from './scratchpack.js';
export { ScratchpackError, codes } from './errors.js';
export { Ext } from './ext.js';
export { Lease } from './lease.js';
export { decode } from './decode.js';
export { encode, encodeInto, encodeToStream, encodeView, ready } from './default.js';
export { decodeMultiple, decodeStream } from './decode-stream.js';
export { contract, Contract } from './contract.js';
