// suggest.js -- "did you mean ...?" for a misspelt option name.
// Owns: the edit distance between two names and which known name is close
// enough to suggest. Must not touch: what the options are or whether a name
// is an error (options.js decides and words the error).

// Names at most this many edits apart are suggested ('trheads' -> 'threads').
const CLOSE = 2;

/** ' (did you mean k?)' for the first known name k close to name, else ''. */
export function suggest(name, known) {
  const close = known.find((k) => editDistance(name, k) <= CLOSE);
  return close ? ` (did you mean ${close}?)` : '';
}

/** Levenshtein distance: insertions, deletions and substitutions, one each. */
export function editDistance(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}
