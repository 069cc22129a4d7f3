// node.js -- the package's entry under Node (the "node" export condition):
// the public surface of index.js, plus the Node file reader handed to
// wasm.js through a static import, so that a bundle made for Node carries
// it too. Must not touch: anything else.
import * as files from './files-node.js';
import { useNodeFiles } from './wasm.js';

useNodeFiles(files);

export * from './index.js';
