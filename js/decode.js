// decode.js -- decode without loading the WebAssembly module.
// Owns: the standalone decode entry. Must not touch: decoder internals.
import { decodeOptions, decodeValue } from './decoder.js';

/** Decodes one MessagePack value (see Scratchpack#decode for the options). */
export function decode(bytes, options) {
  return decodeValue(bytes, decodeOptions(options));
}
