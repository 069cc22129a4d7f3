// The README's runnable JS blocks (the complete, streaming and compressed runs) print what their comments say.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

// Each block's console.log lines end with a comment saying what they print.
for (const name of ['A complete run', 'A streaming run', 'An extensions run', 'A compressed run']) {
  test(`the README's "${name}" prints what its comments say`, async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const block = new RegExp(name + '[^\\n]*\\n\\n```js\\n([\\s\\S]*?)```').exec(readme);
    assert.ok(block, `README has no "${name}" block`);
    const code = block[1].replace("from 'scratchpack'", `from ${JSON.stringify(new URL('../../js/index.js', import.meta.url).href)}`);
    const want = [...code.matchAll(/console\.log\([^\n]*\/\/ (.*)$/gm)].map((m) => m[1].replace(/ \(.*\)$/, '').trim());
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { timeout: 60000 });
    assert.deepEqual(stdout.trim().split('\n'), want);
  });
}
