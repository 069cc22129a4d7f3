// `npm run build` on a machine without the WebAssembly toolchain: it stops
// at once with one line naming what to install (as a user who is not root;
// as root it installs them, as `npm test` does), instead of failing deep in
// the build with `emcmake: command not found`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

// A PATH of the tools the scripts use, less emcc, and an `id` that says "not root".
function pathWithout(missing) {
  const bin = mkdtempSync(join(tmpdir(), 'sp-nobuild-'));
  const which = (name) => spawnSync('bash', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
  for (const tool of ['bash', 'dirname', 'cmake', 'make', 'clang', 'wasm-ld', 'dpkg', 'grep', 'head', 'nproc', 'ls', 'tr', 'tail']) {
    if (missing.includes(tool)) continue;
    const at = which(tool);
    if (at) symlinkSync(at, join(bin, tool));
  }
  symlinkSync(process.execPath, join(bin, 'node'));
  writeFileSync(join(bin, 'id'), '#!/bin/sh\necho 1000\n');
  chmodSync(join(bin, 'id'), 0o755);
  return bin;
}

test('npm run build without emcc stops with one line naming emscripten, before building', () => {
  const bin = pathWithout(['emcc', 'emcmake']);
  try {
    const r = spawnSync(join(bin, 'bash'), [join(root, 'tests/build-package.sh')],
      { cwd: root, env: { PATH: bin, HOME: process.env.HOME ?? '/tmp' }, encoding: 'utf8' });
    assert.equal(r.status, 1, `exit status (stderr: ${r.stderr})`);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `one line: ${r.stderr}`);
    assert.match(lines[0], /missing .*emscripten.*apt-get install -y .*emscripten/);
    assert.doesNotMatch(r.stdout + r.stderr, /command not found/);
    assert.doesNotMatch(r.stdout, /== wasm/, 'nothing was built');
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

// A checkout copied or moved with its build folders: CMake's cache names the
// old tree, whose Makefiles would build there (and write its dist/).
test('a build folder configured by another checkout is emptied before configuring; one configured here is kept', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-builddir-'));
  try {
    const cache = (d, was) => { mkdirSync(join(dir, d)); writeFileSync(join(dir, d, 'CMakeCache.txt'), `CMAKE_CACHEFILE_DIR:INTERNAL=${was}\n`); };
    cache('build-moved', '/nowhere/build-moved');
    cache('build-copied', root);                 // a folder that exists, but not this one
    cache('build-here', join(dir, 'build-here'));
    const r = spawnSync('bash', ['-c', `source "${root}tests/build-dir.sh" && for d in build-moved build-copied build-here build-none; do sp_own_build_dir $d; done`],
      { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(existsSync(join(dir, 'build-moved')), false);
    assert.equal(existsSync(join(dir, 'build-copied')), false);
    assert.equal(existsSync(join(dir, 'build-here', 'CMakeCache.txt')), true);
    assert.match(r.stderr, /== build-moved was configured in \/nowhere\/build-moved: configuring it here again/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
