// node-shim.js -- emitted at the top of the Emscripten ES module (outside
// its factory) with --extern-pre-js. Emscripten 3.1.6's ES-module output
// still calls require() and reads __dirname when it runs under Node; an ES
// module has neither, so give it both. Browsers and workers skip the block.
// process.getBuiltinModule (Node >= 20.16), not an import: no node: import
// for a browser bundler to chase, and no top-level await (Vite bundles the
// pthread worker, which imports this module, as a classic script).
var require, __dirname;
if (typeof process === 'object' && process.versions && process.versions.node) {
  require = process.getBuiltinModule('node:module').createRequire(import.meta.url);
  __dirname = require('node:path').dirname(require('node:url').fileURLToPath(import.meta.url));
}
