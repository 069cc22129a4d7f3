// format-name.js -- what a byte of MessagePack starts, in words, for
// error messages ("expected a str, got a map"). Owns: those names. Must not
// touch: decoding (nothing here reads past the one byte).

const FORMAT_NAMES = [[0x80, 'a positive fixint'], [0x90, 'a map'], [0xa0, 'an array'], [0xc0, 'a str']];

/** What the byte at u8[p] starts ('the end of the input' at or past end). */
export function formatName(u8, p, end) {
  if (p >= end) return 'the end of the input';
  const c = u8[p];
  if (c < 0xc0) return FORMAT_NAMES.find(([lim]) => c < lim)[1];
  if (c >= 0xe0) return 'a negative fixint';
  if (c === 0xc0) return 'nil';
  if (c === 0xc2 || c === 0xc3) return 'a bool';
  if (c <= 0xc6) return c === 0xc1 ? 'the never-used byte 0xc1' : 'a bin';
  if (c <= 0xc9 || (c >= 0xd4 && c <= 0xd8)) return c === 0xd6 || c === 0xd7 || c === 0xc7 ? 'an ext (or timestamp)' : 'an ext';
  if (c <= 0xcb) return c === 0xca ? 'a float 32' : 'a float 64';
  if (c <= 0xd3) return 'an integer';
  if (c <= 0xdb) return 'a str';
  return c <= 0xdd ? 'an array' : 'a map';
}
