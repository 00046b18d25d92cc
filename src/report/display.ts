// How values and the changes inside them read, for every human format (text and Markdown share it, so they cannot
// disagree about what a reviewer sees). Nothing that changed is ever cut: a long string is shortened only in its
// unchanged context, around the change; everything else is shown whole. Money reads as an amount beside its fields.
import { commonEnds, elementChanges, leaves, type ElementChange } from '../diff/elements.js';
import { changeModel } from '../kinds/registry.js';
import { UNRESOLVED } from '../resolve/refs.js';
import { oneLine } from '../util/escape.js';
import { fieldAt, type Field } from '../schema/model.js';
import { canonicalInt64, isObject, type Json } from '../schema/values.js';
import type { Change, DiffEntry } from '../types.js';

/**
 * A value as shown, its characters printable (control, line-separator, bidi and zero-width ones as `\u....`);
 * `word`: a word about the value (unset, added), not the value, which formats set apart; `note`: what the value's
 * references wait for (`Event/final.id known after apply`), said beside the value.
 */
export interface Shown {
  text: string;
  word?: boolean;
  note?: string;
}

/** One line of what changed: `path` is relative to the entry's field ('' the field itself), printable. */
export interface Row {
  op: '+' | '-' | '~' | '↕';
  path: string;
  before?: Shown;
  after?: Shown;
}

/** Strings longer than this are shown around their change only, with this much unchanged context each side. */
const LONG = 120;
const CONTEXT = 30;
/** Every `${Kind/name.id}` in a text (not one written `$${...}`, a literal). */
const UNRESOLVED_ALL = new RegExp(UNRESOLVED.source, 'g');

/** The field model of a change's kind. */
export const modelOf = (c: Change) => changeModel(c);

const fieldOfPath = (model: Field | undefined, path: string) => (model ? fieldAt(model, path) : undefined);

/** The value of a field as shown whole: JSON, a Money as its amount, the amounts of the Money inside it named. */
export function showValue(model: Field | undefined, path: string, v: Json | undefined): Shown {
  return show(fieldOfPath(model, path), v);
}

function show(field: Field | undefined, v: Json | undefined): Shown {
  // proto3: an unset boolean or number is false or 0 (a change from false reads `false → true`, not from unset).
  if (
    v === undefined &&
    !field?.presence &&
    (field?.type === 'boolean' || field?.type === 'integer' || field?.type === 'number' || field?.type === 'int64')
  ) {
    return { text: field.type === 'boolean' ? 'false' : '0' };
  }
  if (v === undefined) return { text: 'unset', word: true };
  const json = oneLine(inline(v));
  const refs = [...new Set(json.match(UNRESOLVED_ALL) ?? [])].map((r) => r.slice(2, -1));
  const note = refs.length ? { note: `${refs.join(', ')} known after apply` } : {};
  if (field?.money && isObject(v)) return { text: oneLine(money(v) ?? json), ...note };
  const inside = amounts(field, v, '');
  return { text: inside.length ? `${json} (${oneLine(inside.join(', '))})` : json, ...note };
}

/** JSON on one line with a space after each comma and colon: a long list or object can wrap between its parts. */
function inline(v: Json): string {
  if (Array.isArray(v)) return `[${v.map(inline).join(', ')}]`;
  if (isObject(v))
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${inline(x)}`)
      .join(', ')}}`;
  return JSON.stringify(v);
}

/** `9.99 EUR (units 9, nanos 990000000)`; undefined for something that is not a whole amount. */
function money(m: Record<string, Json>): string | undefined {
  const units = canonicalInt64(m.units ?? 0);
  const nanos = m.nanos ?? 0;
  if (units === undefined || typeof nanos !== 'number' || !Number.isInteger(nanos)) return undefined;
  const total = BigInt(units) * 1_000_000_000n + BigInt(nanos);
  const abs = total < 0n ? -total : total;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '').padEnd(2, '0');
  const code = typeof m.currency_code === 'string' && m.currency_code ? ` ${m.currency_code}` : '';
  return `${total < 0n ? '-' : ''}${abs / 1_000_000_000n}.${frac}${code} (units ${units}, nanos ${nanos})`;
}

/** The Money values inside a value, by where they are: `[0].price: 9.99 EUR`. */
function amounts(field: Field | undefined, v: Json, at: string): string[] {
  if (!field) return [];
  if (field.money && isObject(v)) {
    const shown = money(v);
    return shown ? [`${at.replace(/^\./, '')}: ${shown.replace(/ \(.*/, '')}`] : [];
  }
  if (field.type === 'message' && isObject(v))
    return Object.entries(v).flatMap(([k, x]) => amounts(field.props?.[k], x, `${at}.${k}`));
  if (field.type === 'array' && Array.isArray(v)) return v.flatMap((x, i) => amounts(field.items, x, `${at}[${i}]`));
  return [];
}

/** Before and after of a changed value; two long strings are cut to the stretch that differs, with some context. */
function pair(field: Field | undefined, b: Json | undefined, a: Json | undefined): [Shown, Shown] {
  if (
    typeof b !== 'string' ||
    typeof a !== 'string' ||
    (b.length <= LONG && a.length <= LONG) ||
    UNRESOLVED.test(b + a)
  )
    return [show(field, b), show(field, a)];
  const [head, tail] = commonEnds(b, a);
  return [{ text: oneLine(around(b, head, tail)) }, { text: oneLine(around(a, head, tail)) }];
}

/** `s` as a JSON string, its first `head` and last `tail` characters (unchanged) cut to CONTEXT each, marked `…`. */
function around(s: string, head: number, tail: number): string {
  let start = Math.max(0, head - CONTEXT);
  let end = Math.min(s.length, s.length - tail + CONTEXT);
  // Never split a surrogate pair: the text shown is still the text.
  if (start > 0 && /[\uDC00-\uDFFF]/.test(s[start])) start--;
  if (end < s.length && /[\uDC00-\uDFFF]/.test(s[end])) end++;
  const inner = JSON.stringify(s.slice(start, end)).slice(1, -1);
  return `"${start > 0 ? '…' : ''}${inner}${end < s.length ? '…' : ''}"`;
}

/** A change inside a value as rows: an element added or removed, or set from unset, reads leaf by leaf. */
function rows(e: ElementChange): Row[] {
  const path = oneLine(e.at);
  switch (e.op) {
    case 'add':
      return leafRows('+', e.field, e.after, e.at);
    case 'remove':
      return leafRows('-', e.field, e.before, e.at);
    case 'move':
      return [{ op: '↕', path, before: { text: `[${String(e.before)}]` }, after: { text: `[${String(e.after)}]` } }];
    default: {
      if (e.before === undefined && isObject(e.after) && !e.field?.money) return leafRows('+', e.field, e.after, e.at);
      const [before, after] = pair(e.field, e.before, e.after);
      return [{ op: '~', path, before, after }];
    }
  }
}

/** A whole value added (`+`) or removed (`-`), one row per leaf. */
function leafRows(op: '+' | '-', field: Field | undefined, v: Json | undefined, at: string): Row[] {
  return leaves(field, v, at).map((l) =>
    op === '+'
      ? { op, path: oneLine(l.at), after: show(l.field, l.after) }
      : { op, path: oneLine(l.at), before: show(l.field, l.after) },
  );
}

/**
 * What changed in one diff entry: for an array or map present on both sides, one row per element or leaf that
 * changed (`inner`); otherwise one row for the value as a whole.
 */
export function entryRows(model: Field | undefined, d: DiffEntry): { inner: boolean; rows: Row[] } {
  const field = fieldOfPath(model, d.path);
  const inner = elementChanges(field, d.before, d.after);
  if (inner.length) return { inner: true, rows: inner.flatMap(rows) };
  const [before, after] = pair(field, d.before, d.after);
  return { inner: false, rows: [{ op: '~', path: '', before, after }] };
}

/** What a create sets in one field: a row per leaf (`[currency_code=EUR, ...].price: 9.99 EUR`), like an update's. */
export const createRows = (model: Field | undefined, d: DiffEntry): Row[] =>
  leafRows('+', fieldOfPath(model, d.path), d.after, '');
