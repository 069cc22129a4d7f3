// sp_memory.js -- a --js-library for the package's modules (wasm/CMakeLists.txt):
// how linear memory grows.
// Owns: emscripten_resize_heap, which malloc's sbrk calls when the heap needs
// more memory than there is. It grows as Emscripten's own does (at least the
// request, up to 20% more, at most 96 MiB more, in 64 KiB pages; a smaller
// step when the bigger one fails) but never past the cap the instance set
// with sp_wasm_set_memory_cap (wasm/package/sp_wasm_memory.c;
// js/scratchpack.js passes its maxMemory option). The cap lives in linear memory, so a pthread's malloc
// honours the same cap as the main thread's. Must not touch: anything else
// of the runtime; a refused growth makes that malloc return NULL (NOMEM).

mergeInto(LibraryManager.library, {
  emscripten_resize_heap__deps: ['emscripten_get_heap_max', '$emscripten_realloc_buffer'],
  emscripten_resize_heap: function(requestedSize) {
    var oldSize = HEAPU8.length;
    requestedSize = requestedSize >>> 0;
    // With pthreads another thread may have grown it meanwhile: let sbrk retry.
    if (requestedSize <= oldSize) return false;
    var max = _emscripten_get_heap_max();
    var cap = typeof _sp_wasm_memory_cap === 'function' ? _sp_wasm_memory_cap() >>> 0 : 0;
    if (cap !== 0 && cap < max) max = cap;
    if (requestedSize > max) return false;
    var page = 65536;
    var alignUp = function(x) { return Math.ceil(x / page) * page; };
    for (var cutDown = 1; cutDown <= 4; cutDown *= 2) {
      var overGrown = Math.min(oldSize * (1 + 0.2 / cutDown), requestedSize + 100663296);
      var newSize = Math.min(max, alignUp(Math.max(requestedSize, overGrown)));
      if (emscripten_realloc_buffer(newSize)) return true;
    }
    return !!emscripten_realloc_buffer(alignUp(requestedSize));
  },
});
