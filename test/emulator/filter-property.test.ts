// Property: any list of clauses the platform's `Parse` can produce, printed in the filter syntax with random quoting,
// escaping, keyword case, brackets and spacing, parses back to the same clauses. A fixed seed and a fixed number of
// cases, so a failure names a case that fails again.
import { describe, expect, it } from 'vitest';
import { parseFilter, type Operator } from '../../src/emulator/filter-parse.js';
import { seededRandom } from '../../src/emulator/server.js';

const SEED = 19;
const CASES = 3000;

type Plain = [field: string, op: Operator, ...values: string[]];

const SPECIAL = '\\():<>"*{}';
const SEPARATORS = ' \t\r\n';
const RESERVED = ['and', 'or', 'not', 'true', 'false'];
const VALUE_BITS = [
  'a',
  'b',
  'Z',
  '0',
  '9',
  '.',
  '-',
  '_',
  'é',
  '😀',
  ' ',
  '\t',
  '\r',
  '\v',
  '\u00a0',
  ...SPECIAL,
  '@',
  '=',
  ',',
  'and',
  'OR',
  'not',
  'true',
  'False',
];
const FIELD_START = ['a', 'b', 'c', 'x', 'é', '_', 'Q'];
const FIELD_BITS = [...FIELD_START, '0', '.', '-', '\u00a0', '\v', ...SPECIAL, '@', '='];

function cases(seed: number) {
  const random = seededRandom(seed);
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const chance = (p: number) => random() < p;
  const sp = () => pick(['', '', ' ', '  ', '\t', '\r\n', '\n']);
  const sp1 = () => pick([' ', ' ', '\t', '\n', ' \r\n ']);
  const word = (w: string) => pick([w, w.toUpperCase(), w[0].toUpperCase() + w.slice(1)]);

  const escaped = (s: string) => [...s].map((c) => (SPECIAL.includes(c) ? `\\${c}` : c)).join('');
  const quoted = (s: string) => `"${s.replace(/[\\"]/g, '\\$&')}"`;
  /** Text that can stand as one unquoted word, escapes included. */
  const wordable = (s: string) =>
    s !== '' &&
    !SPECIAL.includes(s[0]) &&
    ![...s].some((c) => SEPARATORS.includes(c)) &&
    (!RESERVED.includes(s.toLowerCase()) ||
      ['true', 'false'].includes(s.toLowerCase()) ||
      ['and', 'or', 'not'].includes(s));
  /** One token: a word (a reserved word as `\and`, which the platform reads as the text) or quoted text. */
  const token = (s: string) =>
    !wordable(s) || chance(0.3) ? quoted(s) : ['and', 'or', 'not'].includes(s) ? `\\${s}` : escaped(s);
  /** After `:`, a range or in a containment list, a value is pieces side by side: `"a b"c*`; a word ends a run. */
  const value = (s: string): string => {
    const cs = [...s]; // cut between characters, never inside a surrogate pair
    if (cs.length < 2 || chance(0.5)) return token(s);
    const cut = 1 + int(cs.length - 1);
    const [head, tail] = [cs.slice(0, cut).join(''), cs.slice(cut).join('')];
    if (head === '*' && chance(0.5)) return `*${value(tail)}`;
    return `${quoted(head)}${value(tail)}`;
  };
  const text = (bits: readonly string[], max: number) =>
    Array.from({ length: int(max + 1) }, () => pick(bits)).join('');

  const fields: string[] = [];
  const field = () => {
    if (fields.length && chance(0.3)) return pick(fields);
    let f = pick(FIELD_START) + text(FIELD_BITS, 4);
    while (RESERVED.includes(f.toLowerCase())) f += 'x';
    fields.push(f);
    return f;
  };
  const valuesOf = (min: number, max: number) =>
    Array.from({ length: min + int(max - min + 1) }, () => text(VALUE_BITS, 4));

  /** A clause and how it prints; `brackets`: it uses a level of brackets, and then ends with a real `)`. */
  function clause(): { plain: Plain; printed: string; brackets: boolean } {
    const kind = int(7);
    if (kind === 0) {
      const yes = chance(0.5);
      return { plain: ['1', '=', yes ? '1' : '0'], printed: pick([String(yes), `"${yes}"`]), brackets: false };
    }
    const f = field();
    const name = escaped(f);
    if (kind <= 2) {
      const v = text(VALUE_BITS, 4);
      const eq = `${name}${sp()}:${sp()}${value(v)}`;
      if (kind === 1) return { plain: [f, '=', v], printed: eq, brackets: false };
      const grouped = chance(0.3);
      return {
        plain: [f, '!=', v],
        printed: grouped ? `${word('not')}${sp()}(${sp()}${eq}${sp()})` : `${word('not')}${sp1()}${eq}`,
        brackets: grouped,
      };
    }
    if (kind === 3) {
      const vs = valuesOf(2, 4);
      const list = vs.map(token).join(`${sp1()}${word('or')}${sp1()}`);
      return { plain: [f, 'IN', ...vs], printed: `${name}${sp()}:${sp()}(${sp()}${list}${sp()})`, brackets: true };
    }
    if (kind === 4) {
      const op = pick(['<', '<=', '>', '>='] as const);
      const v = text(VALUE_BITS, 4);
      const printed = value(v);
      // `<` then `=x` or `@x` would read as `<=` or `<@`.
      const gap = /^[=@]/.test(printed) ? sp1() : sp();
      return { plain: [f, op, v], printed: `${name}${sp()}${op}${gap}${printed}`, brackets: false };
    }
    const op = pick(['<@', '>@'] as const);
    const vs = valuesOf(1, 3);
    if (vs.length === 1 && chance(0.5))
      return { plain: [f, op, ...vs], printed: `${name}${sp()}${op}${sp()}${value(vs[0])}`, brackets: false };
    return {
      plain: [f, op, ...vs],
      printed: `${name}${sp()}${op}${sp()}(${sp()}${vs.map(value).join(`${sp1()}${word('and')}${sp1()}`)}${sp()})`,
      brackets: true,
    };
  }

  return Array.from({ length: CASES }, () => {
    fields.length = 0;
    const chosen: ReturnType<typeof clause>[] = [];
    const count = new Map<string, number>();
    for (let n = int(6); n > 0; n--) {
      const c = clause();
      const k = (count.get(c.plain[0]) ?? 0) + 1;
      if (k > 2) continue; // the platform refuses a field used more than twice
      count.set(c.plain[0], k);
      chosen.push(c);
    }
    const explicit = chance(0.5);
    const wrapEach = chance(0.2);
    const parts = chosen.map((c) =>
      wrapEach && !c.brackets ? { ...c, printed: `(${sp()}${c.printed}${sp()})`, brackets: true } : c,
    );
    // Between two clauses: a separator, or nothing next to a bracket (an escaped `\)` ending a value is no bracket);
    // `and` needs a separator on each side that has no bracket.
    const body = parts.reduce((out, c, k) => {
      if (!k) return c.printed;
      const [closes, opens] = [parts[k - 1].brackets, c.printed.startsWith('(')];
      if (!explicit) return `${out}${closes || opens ? sp() : sp1()}${c.printed}`;
      return `${out}${closes ? sp() : sp1()}${word('and')}${opens ? sp() : sp1()}${c.printed}`;
    }, '');
    const wrapAll =
      (explicit || parts.length === 1) && parts.length > 0 && !parts.some((c) => c.brackets) && chance(0.3);
    return { plain: chosen.map((c) => c.plain), filter: `${sp()}${wrapAll ? `(${sp()}${body}${sp()})` : body}${sp()}` };
  });
}

describe('filter round trip', () => {
  it(`${CASES} random clause lists (seed ${SEED}) print and parse back to the same clauses`, () => {
    const readBack = (filter: string) => {
      try {
        return parseFilter(filter).map((c) => [c.field, c.op, ...c.values]);
      } catch (e) {
        return (e as Error).message;
      }
    };
    // Only the cases that do not come back, so that a failure shows them and nothing else.
    const lost = cases(SEED)
      .map((c) => ({ ...c, back: readBack(c.filter) }))
      .filter((c) => JSON.stringify(c.back) !== JSON.stringify(c.plain));
    expect(lost).toEqual([]);
  });
});
