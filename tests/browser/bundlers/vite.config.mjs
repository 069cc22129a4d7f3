// docs/bundlers.md's Vite recipe: nothing for `vite build`; in `vite` (dev), keep
// the package out of dependency pre-bundling, which moves its module away
// from the .wasm and the worker that `new URL(…, import.meta.url)` names.
export default {
  optimizeDeps: { exclude: ['scratchpack'] },
};
