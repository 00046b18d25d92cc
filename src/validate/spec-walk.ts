// The checks of a document's values that its JSON Schema cannot make, walked along the kind's field model.
import type { KindDef } from '../kinds/types.js';
import type { LoadedDoc } from '../load/load.js';
import {
  allSchemas,
  escapePointer,
  fieldAtPointer,
  resourceModel,
  unescapePointer,
  type Field,
} from '../schema/model.js';
import { moneySignProblem } from '../schema/money.js';
import { canonicalInt64, canonicalTimestamp, isObject } from '../schema/values.js';
import { SENSITIVE, type Issue } from '../types.js';
import { fromEnvironment, issueAt } from './locate.js';
import { slipOf } from '../schema/spelling.js';
import { dotted } from './schema.js';

/** Why a value the int64 schema lets through (an integer, a decimal string) is still no int64, or undefined.
 *  `written`: an integer written beyond 2^53, held as its text (LoadedDoc.wideIntegers), shown unquoted. */
function int64Problem(v: unknown, written: boolean, hidden: boolean): string | undefined {
  if (
    canonicalInt64(v) !== undefined ||
    !(typeof v === 'number' ? Number.isInteger(v) : /^-?\d+$/.test(String(v).trim()))
  )
    return undefined;
  const shown = hidden ? SENSITIVE : typeof v === 'string' && !written ? JSON.stringify(v) : String(v);
  if (typeof v === 'number' && Math.abs(v) < 2 ** 63)
    return `${shown} was written as a float beyond 2^53, which cannot be read exactly: write it as an integer`;
  return `${shown} is outside the int64 range (-9223372036854775808 to 9223372036854775807)`;
}

/** The checks the schema cannot make: response-only fields; int64 range and exactness; integers beyond 2^53;
 *  timestamps as the API reads them; Money's signs; an enum value outside the known ones (of an enum whose full list
 *  is not public) is a warning, or an error when it is a slip of a known one. Plain leaves of other
 *  types are skipped without building their pointer: a large configuration would make one per leaf. */
export function walkSpec(field: Field, v: unknown, pointer: string, src: LoadedDoc, out: Issue[]): void {
  if (v === null || v === undefined) return;
  const fail = (message: string) => out.push(issueAt(src, pointer, `${dotted(pointer)}: ${message}`));
  // A value from the environment is never quoted, nor a known value near it suggested (fromEnvironment).
  const hidden = typeof v === 'string' && fromEnvironment(src, pointer);
  const quoted = (s: string) => (hidden ? SENSITIVE : JSON.stringify(s));
  if (field.readOnly) {
    fail('is a response-only field set by the server; remove it from spec');
    return;
  }
  if (field.type === 'message' && isObject(v)) {
    const money = field.money ? moneySignProblem(v) : undefined;
    if (money) out.push(issueAt(src, `${pointer}/nanos`, `${dotted(`${pointer}/nanos`)}: ${money}`));
    for (const k in v) {
      const f = field.props?.[k];
      if (f && worthWalking(f, v[k])) walkSpec(f, v[k], `${pointer}/${escapePointer(k)}`, src, out);
    }
  } else if (field.type === 'array' && Array.isArray(v)) {
    v.forEach((x, i) => worthWalking(field.items!, x) && walkSpec(field.items!, x, `${pointer}/${i}`, src, out));
  } else if (field.type === 'int64') {
    const problem = int64Problem(v, !!src.wideIntegers?.includes(pointer), hidden);
    if (problem) fail(problem);
  } else if (field.type === 'integer' && Number.isInteger(v) && !Number.isSafeInteger(v)) {
    fail(`${String(v)} is not an exact integer: beyond 2^53 a number cannot be read exactly`);
  } else if (field.type === 'timestamp' && typeof v === 'string' && canonicalTimestamp(v) === undefined) {
    fail(
      `${quoted(v)} is not a valid date-time (RFC 3339 as the API reads it, e.g. 2026-01-31T20:00:00Z: T between date and time, at most 9 fractional digits, Z or ±hh:mm)`,
    );
  } else if (field.type === 'map' || field.type === 'any') {
    // The schema types no value inside: a `.nan` or `.inf` there would go out as JSON null.
    for (const [p, n] of nonFinite(v, pointer))
      out.push(issueAt(src, p, `${dotted(p)}: ${n} cannot be sent: JSON has no infinity or NaN`));
  } else if (
    field.type === 'enum' &&
    field.known &&
    !field.allowed &&
    typeof v === 'string' &&
    !field.known.includes(v) &&
    /^[A-Z][A-Z0-9_]*$/.test(v)
  ) {
    // The platform's full list is not public (a closed enum's schema refuses other values itself): another value may
    // be real, but one a slip away from a known value is a typo the platform would refuse.
    const slip = slipOf(v, field.known);
    if (slip) fail(hidden ? `${SENSITIVE} is not a known value` : `${v} is not a known value: did you mean ${slip}?`);
    else
      out.push(
        issueAt(
          src,
          pointer,
          `${dotted(pointer)}: ${hidden ? SENSITIVE : v} is not a known value (${field.known.join(', ')}); sending it anyway`,
          'warning',
        ),
      );
  }
}

/** Whether walkSpec has something to check in `x`: a leaf is looked at first, so that only a leaf with a problem
 *  costs its pointer. */
function worthWalking(f: Field, x: unknown): boolean {
  if (x === null || x === undefined) return false;
  switch (f.type) {
    case 'message':
    case 'array':
      return true;
    case 'int64':
      return f.readOnly || canonicalInt64(x) === undefined;
    case 'integer':
      return f.readOnly || (Number.isInteger(x) && !Number.isSafeInteger(x));
    case 'timestamp':
      return f.readOnly || (typeof x === 'string' && canonicalTimestamp(x) === undefined);
    case 'map':
    case 'any':
      return f.readOnly || typeof x === 'object' || (typeof x === 'number' && !Number.isFinite(x));
    case 'enum':
      return f.readOnly || !!f.known;
    default:
      return f.readOnly;
  }
}

/** The numbers JSON cannot carry (NaN, infinities) inside a free-form value, by pointer. */
function nonFinite(v: unknown, pointer: string): Array<[string, number]> {
  if (typeof v === 'number') return Number.isFinite(v) ? [] : [[pointer, v]];
  if (typeof v !== 'object' || v === null) return [];
  return Object.entries(v).flatMap(([k, x]) => nonFinite(x, `${pointer}/${escapePointer(k)}`));
}

const NO_POINTERS: Set<string> = new Set();

/** The pointers of integers written beyond 2^53 where no int64 field takes them: held as their text they would go
 *  out as strings, as numbers without their last digits. One in an unknown field is reported as an unknown field. */
export function wideOutsideInt64(src: LoadedDoc, k: KindDef): Set<string> {
  if (!src.wideIntegers?.length) return NO_POINTERS;
  const fields = Object.keys(allSchemas().get(k.schema)?.properties ?? {});
  return new Set(
    (src.wideIntegers ?? []).filter((p) => {
      if (!p.startsWith('/spec/')) return fields.includes(unescapePointer(p.split('/')[1] ?? ''));
      const f = fieldAtPointer(resourceModel(k.schema), p.slice('/spec'.length));
      return f !== undefined && f.type !== 'int64';
    }),
  );
}

const hasNull = (v: unknown): boolean =>
  v === null || (typeof v === 'object' && Object.values(v as object).some(hasNull));

export function withoutNulls(v: unknown): unknown {
  if (!hasNull(v)) return v;
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (!isObject(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => x !== null)
      .map(([k, x]) => [k, withoutNulls(x)]),
  );
}
