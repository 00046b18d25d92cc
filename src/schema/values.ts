// Pure value transforms driven by the field model: what "unset" means, canonical spellings, zero values.
import type { Field } from './model.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

const TS = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** RFC 3339 -> canonical UTC spelling (`2026-01-01T10:00:00.5Z`), or undefined if it is not a timestamp. */
export function canonicalTimestamp(s: string): string | undefined {
  const m = TS.exec(s);
  if (!m) return undefined;
  const secs = Date.parse(`${m[1]}T${m[2]}${m[4].toUpperCase()}`);
  if (Number.isNaN(secs)) return undefined;
  const frac = (m[3] ?? '').replace(/0+$/, '');
  return new Date(secs).toISOString().replace(/\.000Z$/, frac ? `.${frac}Z` : 'Z');
}

/** int64 written as a number or a decimal string -> canonical decimal string; undefined if not an integer. */
export function canonicalInt64(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return String(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return BigInt(v.trim()).toString();
  return undefined;
}

/** Stable JSON text with sorted keys, for comparing and sorting normalised values. */
export function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stableStringify(v[k])}`).join(',')}}`;
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
      return field?.set ? [...new Map(items.map((x) => [stableStringify(x), x])).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, x]) => x) : items;
    }
    case 'map':
      return isObject(v) && Object.keys(v).length === 0 ? undefined : (v as Json);
    case 'int64': {
      const c = canonicalInt64(v);
      return c === '0' ? undefined : (c ?? (v as Json));
    }
    case 'timestamp':
      return typeof v === 'string' ? (v === '' ? undefined : canonicalTimestamp(v) ?? v) : (v as Json);
    case 'enum':
      return v === '' || (typeof v === 'string' && v.endsWith('_UNSPECIFIED')) ? undefined : (v as Json);
    case 'any':
      return v as Json;
    default:
      if (field?.presence) return v as Json;
      return v === '' || v === 0 || v === false ? undefined : (v as Json);
  }
}

/** The zero value of a field, as the live API emits it (messages and timestamps are null). */
export function zeroOf(field: Field | undefined): Json {
  switch (field?.type) {
    case 'array': return [];
    case 'map': return {};
    case 'int64': return '0';
    case 'enum': return field.zero ?? '';
    case 'string': return '';
    case 'integer': case 'number': return 0;
    case 'boolean': return field.presence ? null : false;
    default: return null;
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
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return asJsonLeaf(a) === asJsonLeaf(b);
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
