// The YAML 1.2 core schema as the `yaml` library resolves plain scalars, given to js-yaml (quick-yaml.ts): js-yaml's
// own CORE_SCHEMA reads more as numbers (`0b11`, `-0x1f`, `+0o7`) and fewer (`-.5`) than `yaml` does, and a
// document's value must not depend on which of the two read it.
import { FAILSAFE_SCHEMA, Type } from 'js-yaml';

export class Unsupported extends Error {}

export const unsupported = (why: string): never => {
  throw new Unsupported(why);
};

const NULL = /^(?:~|null|Null|NULL)?$/;
const BOOL = /^(?:true|True|TRUE|false|False|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const OCT = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const INF = /^[-+]?\.(?:inf|Inf|INF)$/;
const NAN = /^\.(?:nan|NaN|NAN)$/;

/** A word starting with a letter other than n, t, f (null, true, false in their three spellings) is a string:
 *  most scalars are, and are told so without trying a pattern. */
const word = (s: string) => {
  const c = s.charCodeAt(0) | 0x20;
  return c >= 0x61 && c <= 0x7a && c !== 0x6e && c !== 0x74 && c !== 0x66;
};

/** An integer beyond 2^53 is read from its text by the `yaml` path (load/exact-integers.ts); a number cannot hold it. */
const exact = (n: number) => (Number.isSafeInteger(n) ? n : unsupported('an integer beyond 2^53'));

const types = [
  new Type('tag:yaml.org,2002:null', {
    kind: 'scalar',
    resolve: (s: string) => !word(s) && NULL.test(s),
    construct: () => null,
  }),
  new Type('tag:yaml.org,2002:bool', {
    kind: 'scalar',
    resolve: (s: string) => !word(s) && BOOL.test(s),
    construct: (s: string) => s[0] === 't' || s[0] === 'T',
  }),
  new Type('tag:yaml.org,2002:int', {
    kind: 'scalar',
    resolve: (s: string) => !word(s) && (INT.test(s) || OCT.test(s) || HEX.test(s)),
    construct: (s: string) =>
      exact(s[1] === 'o' ? parseInt(s.slice(2), 8) : s[1] === 'x' ? parseInt(s.slice(2), 16) : Number(s)),
  }),
  new Type('tag:yaml.org,2002:float', {
    kind: 'scalar',
    resolve: (s: string) => !word(s) && (FLOAT.test(s) || INF.test(s) || NAN.test(s)),
    construct: (s: string) => (INF.test(s) ? (s[0] === '-' ? -Infinity : Infinity) : NAN.test(s) ? NaN : Number(s)),
  }),
];

/** Strings, sequences and mappings (js-yaml's failsafe schema) and the core schema's scalars as `yaml` reads them. */
export const CORE = FAILSAFE_SCHEMA.extend({ implicit: types });
