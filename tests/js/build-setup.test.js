// `npm run build` on a machine without the WebAssembly toolchain: it stops
// at once with one line naming what to install (as a user who is not root;
// as root it installs them, as `npm test` does), instead of failing deep in
// the build with `emcmake: command not found`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
