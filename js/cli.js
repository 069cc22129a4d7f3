#!/usr/bin/env node
// cli.js -- the `scratchpack` command: `scratchpack inspect [file] [--json]`,
// `scratchpack gen-c contracts.json [-o file.h]`.
// Owns: the arguments, reading the file or stdin, where the lines go (the
// JSON at the pace stdout drains) and the exit code. Must not touch:
// reading MessagePack (inspect.js walks it with the decoder) -- and it
// never loads the WebAssembly module.

import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { ScratchpackError } from './errors.js';
import { check, formatToken, headerLine, jsonChunks, offsetWidth } from './inspect.js';

const usage = `Usage: scratchpack inspect [file] [--json] [--sequence]
       scratchpack gen-c contracts.json [-o file.h|-] [--guard NAME]
       scratchpack --help

gen-c     Writes the C declarations of a contract file (the JSON that JS's
          contract() loads): a struct and an sp_schema per contract, whose
          bytes are the JS contract's (docs/contracts.md). To stdout, or
          to the file after -o. Exit 1 when a contract has no C form.

inspect   Prints each MessagePack token of file (stdin when there is no file
          or it is -): its byte offset and bytes in hex, its format, length
          and value, indented by depth; then the value as JSON. Bad input
          stops at the error, printed with its code and byte offset.
  --json      print only the value as JSON
  --sequence  the input holds several values one after another, none or
              more (each is printed, and --json prints them as one JSON
              array; without it, bytes after the first value are an error)

JSON: bin and ext data in base64 (ext as {"type", "data"}), integers beyond
2^53 and NaN/Infinity as strings, timestamps as ISO 8601, and a map's keys
that are not strings as their JSON text (1 -> "1"; a map where two keys
would then be equal is an array of [key, value] pairs). LZ4-compressed
messages are shown as they are on the wire (ext 99 or 98), not inflated.

Exit codes: 0 the input is valid MessagePack, 1 it is not or it passes a
limit (nesting deeper than 500; the error is on stderr), 2 bad usage, or a
file that cannot be read or written.
`;

/** { file, json, sequence } from the arguments after the command, or a usage error message. */
function parse(args) {
  const o = { file: null, json: false, sequence: false };
  for (const a of args) {
    if (a === '--json') o.json = true;
    else if (a === '--sequence') o.sequence = true;
    else if (a.startsWith('-') && a !== '-') return `unknown option ${a}`;
    else if (o.file !== null) return `one file at most (got ${o.file} and ${a})`;
    else o.file = a;
  }
  return o;
}

async function readInput(file) {
  if (file !== null && file !== '-') return readFile(file);
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks);
}

// Lines go out in blocks: one write per line costs more than the walk.
function lineWriter(stream) {
  let block = [];
  return {
    line(s) {
      block.push(s);
      if (block.length >= 1024) this.flush();
    },
    flush() {
      if (block.length > 0) stream.write(`${block.join('\n')}\n`);
      block = [];
    },
  };
}

async function inspectCommand(args) {
  const o = parse(args);
  if (typeof o === 'string') return fail(o);
  if (o.file === null && process.stdin.isTTY) return fail('no file, and stdin is a terminal');
  let bytes;
  try {
    bytes = await readInput(o.file);
  } catch (e) {
    process.stderr.write(`scratchpack: cannot read ${o.file ?? 'stdin'}: ${e.message}\n`);
    return 2;
  }
  const out = lineWriter(process.stdout);
  const width = offsetWidth(bytes.length);
  if (!o.json) out.line(headerLine(width));
  let ranges;
  try {
    ranges = check(bytes, o.sequence, o.json ? null : (t) => out.line(formatToken(bytes, t, width)));
  } catch (e) {
    if (!(e instanceof ScratchpackError)) throw e;
    out.flush();
    const what = e.message.replace(/ \(at byte \d+\)$/, '');
    process.stderr.write(`error ${e.code} at byte ${e.offset} (0x${e.offset.toString(16)}): ${what}\n`);
    return 1;
  }
  if (!o.json) out.line('');
  out.flush();
  // The JSON is made as it is written, and no faster than stdout takes it:
  // a big input never has its whole value, nor its whole text, in memory.
  for (const text of jsonChunks(bytes, ranges, undefined, o.sequence))
    if (!process.stdout.write(text)) await once(process.stdout, 'drain');
  return 0;
}

async function genC(args) {
  let file = null, outFile = null, guard;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-o' || a === '--guard') {
      const v = args[++i];
      if (v === undefined || (v.startsWith('-') && v !== '-')) return fail(`${a} needs ${a === '-o' ? 'a file name' : 'a name'}`);
      if (a === '-o') outFile = v;
      else guard = v;
    } else if (a.startsWith('-')) return fail(`unknown option ${a}`);
    else if (file !== null) return fail(`one contract file at most (got ${file} and ${args[i]})`);
    else file = args[i];
  }
  if (file === null) return fail('gen-c needs a contract file');
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    process.stderr.write(`scratchpack: cannot read ${file}: ${e.message}\n`);
    return 2;
  }
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    const why = e.message.replace(/[^\x20-\x7e]/g, '?').slice(0, 120);   // no bytes of a binary file on the terminal
    process.stderr.write(`scratchpack gen-c: ${file} is not valid JSON (${why})\n`);
    return 2;
  }
  const { generateC } = await import('./contract-c.js');
  try {
    text = generateC(doc, guard === undefined ? {} : { guard });
  } catch (e) {
    if (!(e instanceof ScratchpackError)) throw e;
    process.stderr.write(`scratchpack gen-c: ${e.code}: ${oneLine(e.message)}\n`);
    return 1;
  }
  if (outFile === null || outFile === '-') {
    process.stdout.write(text);
    return 0;
  }
  try {
    await writeFile(outFile, text);
  } catch (e) {
    process.stderr.write(`scratchpack: cannot write ${outFile}: ${e.message}\n`);
    return 2;
  }
  return 0;
}

// A message on one line: a name's control characters (a newline...) as escapes.
const oneLine = (m) => m.replace(/[\x00-\x1f\x7f\u2028\u2029]/g, (c) => JSON.stringify(c).slice(1, -1));

function fail(why) {
  process.stderr.write(`scratchpack: ${why} (scratchpack --help for the usage)\n`);
  return 2;
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(usage);
    return 0;
  }
  if (command === 'inspect') {
    if (rest.includes('--help') || rest.includes('-h')) { process.stdout.write(usage); return 0; }
    return inspectCommand(rest);
  }
  if (command === 'gen-c') {
    if (rest.includes('--help') || rest.includes('-h')) { process.stdout.write(usage); return 0; }
    return genC(rest);
  }
  return fail(command === undefined ? 'no command' : `unknown command ${command}`);
}

// A reader that stops early (| head) is not an error; any other failure
// to write (a full disk) is one line and exit 2, as an unwritable -o is.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  process.stderr.write(`scratchpack: cannot write stdout: ${e.message}\n`);
  process.exit(2);
});
process.exitCode = await main(process.argv.slice(2));
