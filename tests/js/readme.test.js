// The runnable JS blocks of the README and docs/ (named by the sentence
// before them) print what their comments say.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

// [file, the block's name]: each block's console.log lines end with a comment saying what they print.
const blocks = [
  ['README.md', 'A first run'],
  ['README.md', 'A stream run'],
  ['README.md', 'An instance run'],
  ['docs/javascript.md', 'A complete run'],
  ['docs/javascript.md', 'A streaming run'],
  ['docs/extensions.md', 'An extensions run'],
  ['docs/compression.md', 'A compressed run'],
];
for (const [file, name] of blocks) {
  test(`${file}: "${name}" prints what its comments say`, async () => {
    const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    const block = new RegExp(name + '[^\\n]*\\n(?:[^\\n]+\\n)*?\\n```js\\n([\\s\\S]*?)```').exec(text);
    assert.ok(block, `${file} has no "${name}" block`);
    const code = block[1].replace("from 'scratchpack'", `from ${JSON.stringify(new URL('../../js/index.js', import.meta.url).href)}`);
    const want = [...code.matchAll(/console\.log\([^\n]*\/\/ (.*)$/gm)].map((m) => m[1].replace(/ \(.*\)$/, '').trim());
    assert.ok(want.length > 0, `"${name}" prints nothing to check`);
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { timeout: 60000 });
    assert.deepEqual(stdout.trim().split('\n'), want);
  });
}
