// The README's complete JS run prints what its comments say.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

test("the README's complete run prints what its comments say", async () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /A complete run[^\n]*\n\n```js\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'README has no "A complete run" block');
  const code = block[1].replace("from 'scratchpack'", `from ${JSON.stringify(new URL('../../js/index.js', import.meta.url).href)}`);
  const want = [...code.matchAll(/console\.log\([^\n]*\/\/ (.*)$/gm)].map((m) => m[1].replace(/ \(.*\)$/, '').trim());
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { timeout: 30000 });
  assert.deepEqual(stdout.trim().split('\n'), want);
});
