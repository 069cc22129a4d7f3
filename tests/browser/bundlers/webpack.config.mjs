// docs/bundlers.md's webpack recipe: a plain production build for the browser,
// nothing for the package (its .wasm files become assets, Emscripten's
// pthread worker a chunk of its own). The default output (classic
// scripts), not the experimental output.module: with it webpack 5.113
// leaves the pthread build's .wasm asset module out of the page's chunks.
export default {
  mode: 'production',
  target: 'web',
  entry: './app.js',
};
