// decode.js -- decode without loading the WebAssembly module.
// Owns: the standalone decode entry. Must not touch: decoder internals.
import { decodeOptions } from './decode-options.js';
import { decodeTop } from './decompress.js';

/**
 * Decodes one MessagePack value (see Scratchpack#decode for the options),
 * decompressing an Lz4Block or Lz4BlockArray message unless decompress is false.
 */
export function decode(bytes, options) {
  return decodeTop(bytes, decodeOptions(options));
}
