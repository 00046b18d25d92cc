// Pure value transforms driven by the field model: what "unset" means, canonical spellings, zero values.
import type { Field } from './model.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 3339 as the API reads it (Go's time.RFC3339Nano, protobuf's Timestamp): `T` between date and time, at most
 *  nine fractional digits, `Z` or ±hh:mm. No space, no lower case, no leap second, no other offset spelling. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|([+-])(\d{2}):(\d{2}))$/;
/** The instants a Timestamp can hold: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z. */
const [FIRST_MS, LAST_MS] = [Date.parse('0001-01-01T00:00:00Z'), Date.parse('9999-12-31T23:59:59Z')];

/** RFC 3339 -> canonical UTC spelling (`2026-01-01T10:00:00.5Z`), or undefined if the API would refuse it. */
export function canonicalTimestamp(s: string): string | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, min, sec, offH, offM] = [1, 2, 3, 4, 5, 6, 9, 10].map((i) => Number(m[i] ?? 0));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth ||
    hour > 23 ||
    min > 59 ||
    sec > 59 ||
    offH > 23 ||
    offM > 59
  )
    return undefined;
  const ms =
    Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`) -
    (m[8] === '-' ? -1 : 1) * (offH * 60 + offM) * 60_000;
  if (!(ms >= FIRST_MS && ms <= LAST_MS)) return undefined;
  const frac = (m[7] ?? '').replace(/0+$/, '');
  return new Date(ms).toISOString().replace(/\.000Z$/, frac ? `.${frac}Z` : 'Z');
}

const [INT64_MIN, INT64_MAX] = [-(2n ** 63n), 2n ** 63n - 1n];

/** int64 written as a number or a decimal string -> canonical decimal string; undefined if it is not an int64, or
 *  if it is a number beyond 2^53, which JavaScript holds inexactly (`9007199254740993` would read as ...992). */
export function canonicalInt64(v: unknown): string | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? String(v) : undefined;
  if (typeof v !== 'string' || !/^-?\d+$/.test(v.trim())) return undefined;
  const n = BigInt(v.trim());
  return n >= INT64_MIN && n <= INT64_MAX ? n.toString() : undefined;
}

/** Characters that would end a message's line, or move or hide text on a terminal (controls, line and paragraph
 *  separators, bidirectional overrides, zero-width marks): a key or value from a document is shown with them escaped. */
export const UNPRINTABLE =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

const escapeChar = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` safe to print on one line: unprintable characters as \uXXXX escapes. */
export const printable = (text: string) => text.replace(UNPRINTABLE, escapeChar);

/**
 * A value as indented JSON text and a newline, for the machine formats and saved plans. JSON.stringify escapes
 * controls but leaves line separators, bidi and zero-width characters raw, which a terminal or an editor would act
 * on: they are written as \uXXXX escapes too (they stand only inside strings, so the value read back is the same).
 */
export const jsonText = (v: unknown) =>
  `${JSON.stringify(v, null, 2).replace(UNPRINTABLE, (c) => (c === '\n' ? c : escapeChar(c)))}\n`;

/** A value as JSON on one line (a log line), escaped as jsonText escapes it. */
export const jsonLine = (v: unknown) => JSON.stringify(v).replace(UNPRINTABLE, escapeChar);

/** Stable JSON text with sorted keys, for comparing and sorting normalised values. */
export function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * The meaning of a value: undefined when it is unset (null, "", 0, false, [], {}, *_UNSPECIFIED, "0"),
 * int64 and timestamps in one spelling, set-like arrays sorted, messages without their unset fields.
 * Both the desired and the live side go through this before they are compared.
 */
export function normalize(field: Field | undefined, v: unknown): Json | undefined {
  if (v === null || v === undefined) return undefined;
  const type = field?.type ?? 'any';
  switch (type) {
    case 'message': {
      if (!isObject(v)) return v as Json;
      const out: JsonObject = {};
      for (const [k, x] of Object.entries(v)) {
        const n = normalize(field?.props?.[k], x);
        if (n !== undefined) out[k] = n;
      }
      return Object.keys(out).length ? out : undefined;
    }
    case 'array': {
      if (!Array.isArray(v)) return v as Json;
      if (v.length === 0) return undefined;
      const items = v.map((x) => normalize(field?.items, x) ?? zeroOf(field?.items));
      return field?.set
        ? [...new Map(items.map((x) => [stableStringify(x), x])).entries()]
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([, x]) => x)
        : items;
    }
    case 'map':
      return isObject(v) && Object.keys(v).length === 0 ? undefined : (v as Json);
    case 'int64': {
      const c = canonicalInt64(v);
      return c === '0' ? undefined : (c ?? (v as Json));
    }
    case 'timestamp':
      return typeof v === 'string' ? (v === '' ? undefined : (canonicalTimestamp(v) ?? v)) : (v as Json);
    case 'enum':
      return v === '' || (typeof v === 'string' && v.endsWith('_UNSPECIFIED')) ? undefined : (v as Json);
    case 'any':
      return v as Json;
    default:
      if (field?.presence) return v as Json;
      return v === '' || v === 0 || v === false ? undefined : (v as Json);
  }
}

/** Every empty message (`{}`) under a message field as `null`: both mean unset, so both clear the field. The diff
 *  descends into a message and would find nothing to do in `{}`. Returns `v` itself when there is none. */
export function emptyMessagesAsNull(field: Field, v: JsonObject): JsonObject {
  let out: JsonObject | undefined;
  for (const [k, x] of Object.entries(v)) {
    const f = field.props?.[k];
    if (f?.type !== 'message' || !isObject(x)) continue;
    const y = Object.keys(x).length ? emptyMessagesAsNull(f, x) : null;
    if (y !== x) (out ??= { ...v })[k] = y;
  }
  return out ?? v;
}

/** The zero value of a field, as the live API emits it (messages and timestamps are null). */
export function zeroOf(field: Field | undefined): Json {
  switch (field?.type) {
    case 'array':
      return [];
    case 'map':
      return {};
    case 'int64':
      return '0';
    case 'enum':
      return field.zero ?? '';
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return field.presence ? null : false;
    default:
      return null;
  }
}

/** Every unset field present as its zero value, nested ones too, int64 as strings: the live API's style. */
export function zeroFill(field: Field, v: unknown): Json {
  if (v === null || v === undefined) return zeroOf(field);
  if (field.type === 'message' && isObject(v)) {
    const out: JsonObject = {};
    for (const [k, f] of Object.entries(field.props ?? {})) out[k] = zeroFill(f, v[k]);
    return out;
  }
  if (field.type === 'array' && Array.isArray(v)) return v.map((x) => zeroFill(field.items!, x));
  if (field.type === 'int64') return canonicalInt64(v) ?? (v as Json);
  if (field.type === 'timestamp' && typeof v === 'string') return canonicalTimestamp(v) ?? v;
  return v as Json;
}

/** int64 values written as the API's strings (`10` -> `"10"`), everything else as written: what is sent.
 *  Returns the same object where nothing needs rewriting, so most documents cost no copy. */
export function wireForm(field: Field | undefined, v: unknown): Json {
  if (field?.type === 'int64') return canonicalInt64(v) ?? (v as Json);
  if (field?.type === 'message' && isObject(v)) {
    let out: JsonObject | undefined;
    for (const [k, x] of Object.entries(v)) {
      const w = wireForm(field.props?.[k], x);
      if (w !== x) (out ??= { ...v })[k] = w;
    }
    return out ?? v;
  }
  if (field?.type === 'array' && Array.isArray(v)) {
    const items = v.map((x) => wireForm(field.items, x));
    return items.some((w, i) => w !== v[i]) ? items : (v as Json);
  }
  return v as Json;
}

/** A copy keeping only what passes `keep`, descending into messages and arrays of messages. */
export function prune(field: Field, v: unknown, keep: (f: Field) => boolean): Json | undefined {
  if (!keep(field)) return undefined;
  if (field.type === 'message' && isObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      const f = field.props?.[k];
      const p = f ? prune(f, x, keep) : (x as Json);
      if (p !== undefined) out[k] = p;
    }
    return out;
  }
  if (field.type === 'array' && Array.isArray(v)) return v.map((x) => prune(field.items!, x, keep) ?? null);
  return v as Json;
}

/** Response-only fields (readOnly) removed: what may be sent back in a write. */
export const writableOnly = (field: Field, v: unknown) => prune(field, v, (f) => !f.readOnly);

/** The value at a dot path inside nested objects, or undefined. */
export function valueAt(v: Json | undefined, path: string): Json | undefined {
  let cur = v;
  for (const p of path.split('.')) cur = isObject(cur) ? cur[p] : undefined;
  return cur;
}

/** What a leaf reads as in that text: undefined (a key's too) and non-finite numbers read as null. */
const asJsonLeaf = (v: unknown) => (v === undefined || (typeof v === 'number' && !Number.isFinite(v)) ? null : v);

/**
 * Equal as JSON texts with sorted keys would be (`stableStringify(a) === stableStringify(b)`), without building
 * them: the diff compares every field of every document, and the texts were most of its garbage.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return asJsonLeaf(a) === asJsonLeaf(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => Object.hasOwn(y, k) && deepEqual(x[k], y[k]));
}

export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}
