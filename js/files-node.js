// files-node.js -- Node only: reads the package's files from disk (Node 20's
// fetch takes no file: URLs). Owns: turning a missing file into the error
// that names it. Must not touch: which files there are (wasm.js says).
// Reached through the "node" entry (node.js) or by wasm.js's dynamic
// import, never from a browser bundle.
import { access, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import { missingFile } from './wasm.js';

const pathOf = (url) => (url instanceof URL || String(url).startsWith('file:') ? fileURLToPath(url) : String(url));

/** The file's bytes; rejects with the package's missing-file error naming its path. */
export async function read(url) {
  try {
    return await readFile(pathOf(url));
  } catch (e) {
    throw missingFile(pathOf(url), e.code || e.message, e);
  }
}

/** Resolves when the file can be read; else rejects as read() does. */
export async function check(url) {
  try {
    await access(pathOf(url));
  } catch (e) {
    throw missingFile(pathOf(url), e.code || e.message, e);
  }
}
