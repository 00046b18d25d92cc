// The scalars of the fast reader (fast-yaml.ts): plain ones resolved by the YAML 1.2 core schema as the `yaml`
// library resolves them, quoted ones on one line unescaped. Anything else throws Unsupported, and the caller reads
// the file with `yaml` instead.

export class Unsupported extends Error {}

export const unsupported = (why: string): never => {
  throw new Unsupported(why);
};

/** YAML's white space is the space and the tab (refused by parseSimple): JavaScript's trim() would also drop a
 *  no-break space, U+3000 or U+2028, which YAML reads as text. */
export const trimSpaces = (s: string) => trimSpacesEnd(trimSpacesStart(s));
export const trimSpacesStart = (s: string) => {
  let i = 0;
  while (s.charCodeAt(i) === 0x20) i++;
  return i ? s.slice(i) : s;
};
export const trimSpacesEnd = (s: string) => {
  let i = s.length;
  while (i > 0 && s.charCodeAt(i - 1) === 0x20) i--;
  return i < s.length ? s.slice(0, i) : s;
};

/** Half of a surrogate pair, alone: no character (only an escape can make one; load.ts reports it). */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Characters the reader leaves to `yaml`: controls (tab, CR, VT, FF...), the line and paragraph separators and
 *  NEL (line breaks in YAML 1.1), a byte order mark (YAML's only at the start of a document), non-characters and
 *  unpaired surrogates. */
export const REFUSED_CHARACTERS = new RegExp(
  `[\\x00-\\x09\\x0b-\\x1f\\x7f-\\x9f\\u2028\\u2029\\ufeff\\ufffe\\uffff]|${LONE_SURROGATE.source}`,
);

const NULL = /^(?:~|null|Null|NULL)?$/;
const BOOL = /^(?:true|True|TRUE|false|False|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const OCT = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const INF = /^[-+]?\.(?:inf|Inf|INF)$/;
const NAN = /^\.(?:nan|NaN|NAN)$/;

/** An integer beyond 2^53 is read from its text by the `yaml` path (load/exact-integers.ts); a number cannot hold it. */
const exact = (n: number) => (Number.isSafeInteger(n) ? n : unsupported('an integer beyond 2^53'));

/** A plain scalar's value under the YAML 1.2 core schema, as the `yaml` library resolves it. */
export function resolvePlain(s: string): unknown {
  // Most scalars are words: one starting with a letter other than n, t, f (null, true, false in their three
  // spellings) is a string, without trying the patterns below.
  const c = s.charCodeAt(0) | 0x20;
  if (c >= 0x61 && c <= 0x7a && c !== 0x6e && c !== 0x74 && c !== 0x66) return s;
  if (NULL.test(s)) return null;
  if (BOOL.test(s)) return s[0] === 't' || s[0] === 'T';
  if (INT.test(s)) return exact(Number(s));
  if (OCT.test(s)) return exact(parseInt(s.slice(2), 8));
  if (HEX.test(s)) return exact(parseInt(s.slice(2), 16));
  if (FLOAT.test(s)) return Number(s);
  if (INF.test(s)) return s[0] === '-' ? -Infinity : Infinity;
  if (NAN.test(s)) return NaN;
  return s;
}

/** A plain key must read as a string; a key that YAML would make a number, bool or null is left to `yaml`. */
export function plainKey(s: string): string {
  return typeof resolvePlain(s) === 'string' ? s : unsupported('a key that is not a string');
}

const ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
};

/** A quoted scalar starting at s[i]; returns its value and the index after the closing quote. */
export function quoted(s: string, i: number): [string, number] {
  const q = s[i];
  let out = '';
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (q === "'" && c === "'") {
      if (s[j + 1] === "'") {
        out += "'";
        j++;
        continue;
      }
      return [out, j + 1];
    }
    if (q === '"' && c === '"') return [out, j + 1];
    if (q === '"' && c === '\\') {
      const e = s[++j];
      const hex = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
      if (hex) {
        const code = s.slice(j + 1, j + 1 + hex);
        const point = parseInt(code, 16);
        if (!/^[0-9a-fA-F]+$/.test(code) || code.length !== hex) unsupported('escape');
        // Beyond U+10FFFF, or half of a surrogate pair: no character, which `yaml` and load.ts report.
        if (point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff)) unsupported('an escape that names no character');
        out += String.fromCodePoint(point);
        j += hex;
      } else if (e in ESCAPES) out += ESCAPES[e];
      else unsupported('escape');
      continue;
    }
    out += c;
  }
  return unsupported('a quoted scalar over several lines');
}
