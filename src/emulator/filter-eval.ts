// The platform's filter applied to stored resources. The library leaves the meaning of a clause to each server (which
// fields, which operators per field, how a value is read); the emulator's choices, the same for every list:
// - any top-level field of the resource that holds one value (string, enum, boolean, number, int64, timestamp), and
//   arrays of such values for containment only; a list may add fields its resources never carry (read as unset);
// - `field:value`, value lists `field:(a or b)` and `not field:value` on every such field;
// - ranges (`< <= > >=`) on numbers, int64 and timestamps only; containment (`>@`, `<@`) on arrays only;
// - values as the platform types them: strings exact (`*` is a plain character, no prefix match), enums by name
//   (an unknown name is an error), booleans as Go reads them, numbers by value, timestamps as instants (so
//   `...00Z`, `...00.000Z` and `...01:00+01:00` are equal); `type_id:default` means "no type";
// - an unset field holds its zero value (`""`, `0`, `false`, the enum's `*_UNSPECIFIED`, `[]`); an unset timestamp
//   equals nothing and is in no range, so only `not` matches it;
// - a bare `true`/`false` (the clause `1 = 1`/`1 = 0`) keeps everything/nothing.
import type { Field } from '../schema/model.js';
import { canonicalInt64, canonicalTimestamp, type Json, type JsonObject } from '../schema/values.js';
import { FilterError } from './filter-lex.js';
import { parseFilter, type Clause } from './filter-parse.js';

export type Predicate = (r: JsonObject) => boolean;

/** A value in a comparable form; undefined is "no value" (an unset timestamp). */
type Key = string | number | bigint | boolean | undefined;

const SINGLE = new Set(['string', 'enum', 'boolean', 'int64', 'integer', 'number', 'timestamp']);
const ORDERED = new Set(['int64', 'integer', 'number', 'timestamp']);
/** strconv.ParseBool's spellings, which is how the platform's Go code reads a boolean. */
const BOOLS = new Map<string, boolean>([
  ...['1', 't', 'T', 'TRUE', 'true', 'True'].map((s) => [s, true] as const),
  ...['0', 'f', 'F', 'FALSE', 'false', 'False'].map((s) => [s, false] as const),
]);
/** The spec: "filtering on type_id:default selects creative works that have no type_id". */
const NO_TYPE = { field: 'type_id', value: 'default' };

/** An RFC 3339 timestamp as nanoseconds since the epoch, so that spellings of one instant compare equal. */
export function instant(s: unknown): bigint | undefined {
  const c = typeof s === 'string' ? canonicalTimestamp(s) : undefined;
  if (!c) return undefined;
  const [, whole, frac = ''] = /^(.+T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(c) ?? [];
  return BigInt(Date.parse(`${whole}Z`)) * 1_000_000n + BigInt(frac.padEnd(9, '0'));
}

/** A stored value as a Key. */
function stored(f: Field, v: Json | undefined): Key {
  switch (f.type) {
    case 'timestamp':
      return instant(v);
    case 'boolean':
      return v === true;
    case 'int64':
      return BigInt(canonicalInt64(v) ?? 0);
    case 'integer':
    case 'number':
      return typeof v === 'number' ? v : 0;
    case 'enum':
      return typeof v === 'string' && v ? v : (f.zero ?? '');
    default:
      return typeof v === 'string' ? v : '';
  }
}

/** A filter value as a Key of the field's type; `refuse` throws for a value the type cannot hold. */
function typed(f: Field, name: string, value: string, refuse: (why: string) => Error): Key {
  const not = `, not ${JSON.stringify(value)}`;
  switch (f.type) {
    case 'timestamp': {
      const t = instant(value);
      if (t === undefined) throw refuse(`${name} takes an RFC 3339 timestamp${not}`);
      return t;
    }
    case 'boolean': {
      const b = BOOLS.get(value);
      if (b === undefined) throw refuse(`${name} takes true or false${not}`);
      return b;
    }
    case 'int64':
    case 'integer':
      if (!/^[+-]?\d+$/.test(value)) throw refuse(`${name} takes an integer${not}`);
      return f.type === 'int64' ? BigInt(value) : Number(value);
    case 'number':
      if (value.trim() === '' || !Number.isFinite(Number(value))) throw refuse(`${name} takes a number${not}`);
      return Number(value);
    case 'enum':
      if (f.known && !f.known.includes(value)) throw refuse(`${name} takes one of ${f.known.join(', ')}${not}`);
      return value;
    default:
      return name === NO_TYPE.field && value === NO_TYPE.value ? '' : value;
  }
}

const equal = (a: Key, b: Key) => a !== undefined && a === b;

function inRange(op: Clause['op'], have: Key, want: Key): boolean {
  if (have === undefined) return false;
  switch (op) {
    case '<':
      return have < want!;
    case '<=':
      return have <= want!;
    case '>':
      return have > want!;
    default:
      return have >= want!;
  }
}

/** One clause as a predicate, checked against the field model; a FilterError where the server refuses it. */
function compileClause(c: Clause, model: Record<string, Field>): Predicate {
  if (c.field === '1') return c.values[0] === '1' ? () => true : () => false;
  const refuse = (why: string) => new FilterError(why, c.pos);
  const f = Object.hasOwn(model, c.field) ? model[c.field] : undefined;
  const array = f?.type === 'array' && f.items && SINGLE.has(f.items.type);
  if (!f || !(array || SINGLE.has(f.type))) throw refuse(`cannot filter on ${JSON.stringify(c.field)}`);
  const containment = c.op === '>@' || c.op === '<@';
  if (array !== containment) {
    throw refuse(
      array
        ? `${c.field} is a list: use ${c.field} >@ (values) or ${c.field} <@ (values)`
        : `${c.op} applies to list fields only`,
    );
  }
  if (['<', '<=', '>', '>='].includes(c.op) && !ORDERED.has(f.type))
    throw refuse(`${c.field} cannot be compared with ${c.op} (only numbers and timestamps can)`);
  const field = array ? f.items! : f;
  const wants = c.values.map((v) => typed(field, c.field, v, refuse));
  const read = (r: JsonObject) => stored(f, r[c.field]);
  switch (c.op) {
    case '=':
    case 'IN':
      return (r) => wants.some((w) => equal(read(r), w));
    case '!=':
      return (r) => !equal(read(r), wants[0]);
    case '>@':
    case '<@': {
      const each = (r: JsonObject) =>
        (Array.isArray(r[c.field]) ? (r[c.field] as Json[]) : []).map((v) => stored(field, v));
      return c.op === '>@'
        ? (r) => {
            const have = each(r);
            return wants.every((w) => have.some((h) => equal(h, w)));
          }
        : (r) => each(r).every((h) => wants.some((w) => equal(h, w)));
    }
    default:
      return (r) => inRange(c.op, read(r), wants[0]);
  }
}

/**
 * Parses `text` as the platform does and checks every clause against the resource's fields (plus `unset`: fields
 * the filter may name that the stored resources never carry); the predicate keeps what all clauses match.
 */
export function compileFilter(text: string, model: Field, unset: string[] = []): Predicate {
  const fields: Record<string, Field> = { ...model.props };
  for (const name of unset) fields[name] = { type: 'string', readOnly: true, secret: false };
  const tests = parseFilter(text).map((c) => compileClause(c, fields));
  return (r) => tests.every((t) => t(r));
}
