// CEL's own semantics where cel-js's differ, as plain functions over cel-js's values (harden.ts puts them in the
// checked expression): equality across int, uint and double and inside lists and maps, exact comparison of an int
// with a double, `in` by that equality, a list indexed by a uint, a timestamp's getters in a time zone (an IANA name
// or an offset), a duration's getMilliseconds, string() of bytes that are not UTF-8, and timestamps that would lose
// sub-millisecond digits (cel-js keeps a timestamp as a JavaScript Date).
import { Optional } from '@marcbachmann/cel-js';
import { Duration as CelDuration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';

/** cel-js's classes of uint and duration values. */
export const UInt = UnsignedInt as unknown as new (v: bigint) => { value: bigint | number };
export const Duration = CelDuration as unknown as new (
  s: bigint,
  n: number,
) => { seconds: bigint | number; nanos: number };

type Num = bigint | number;
/** A number of any CEL numeric type as bigint or double, or undefined for a value that is not a number. */
function numeric(v: unknown): Num | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof UInt) return BigInt(v.value);
  return undefined;
}

/** -1, 0, 1, or NaN (a NaN operand). Against a double, an int or uint is compared as a double (as CEL does: its
 *  conformance cases have `dyn(9223372036854775807) < 9223372036854775808.0` false); else exactly. */
export function compareNumbers(a: Num, b: Num): number {
  const [x, y] = typeof a === typeof b ? [a, b] : [Number(a), Number(b)];
  return x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN;
}

export const isMap = (v: unknown): v is Map<unknown, unknown> | Record<string, unknown> =>
  v instanceof Map ||
  (typeof v === 'object' &&
    v !== null &&
    Object.getPrototypeOf(v) === Object.prototype &&
    !(v instanceof Optional) &&
    !(v instanceof Date));
const entries = (m: Map<unknown, unknown> | Record<string, unknown>): Array<[unknown, unknown]> =>
  m instanceof Map ? [...m] : Object.entries(m);

/** The value at `key` of map `m` by CEL's key equality (1, 1u and 1.0 are one key), or undefined. */
export function lookup(
  m: Map<unknown, unknown> | Record<string, unknown>,
  key: unknown,
): { value: unknown } | undefined {
  if (!(m instanceof Map)) return typeof key === 'string' && Object.hasOwn(m, key) ? { value: m[key] } : undefined;
  if (m.has(key)) return { value: m.get(key) };
  for (const [k, v] of m) if (celEquals(k, key)) return { value: v };
  return undefined;
}

/** CEL's equality: numbers by value across their types, lists and maps element by element, else same type and value. */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const [x, y] = [numeric(a), numeric(b)];
  if (x !== undefined || y !== undefined) return x !== undefined && y !== undefined && compareNumbers(x, y) === 0;
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => celEquals(v, b[i]));
  if (a instanceof Uint8Array || b instanceof Uint8Array)
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b));
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof Duration || b instanceof Duration)
    return (
      a instanceof Duration && b instanceof Duration && BigInt(a.seconds) === BigInt(b.seconds) && a.nanos === b.nanos
    );
  if (a instanceof Optional || b instanceof Optional)
    return (
      a instanceof Optional &&
      b instanceof Optional &&
      a.hasValue() === b.hasValue() &&
      (!a.hasValue() || celEquals(a.value(), b.value()))
    );
  if (isMap(a) && isMap(b)) {
    const ea = entries(a);
    if (ea.length !== entries(b).length) return false;
    return ea.every(([k, v]) => {
      const other = lookup(b, k);
      return other !== undefined && celEquals(v, other.value);
    });
  }
  return false;
}

/** A key as cel-js keeps it in a map literal's object: its text (`1`, `true`); undefined for a double with a fraction. */
const objectKey = (k: unknown): string | undefined => {
  const n = numeric(k);
  if (n === undefined) return typeof k === 'boolean' ? String(k) : undefined;
  return typeof n === 'number' && !Number.isInteger(n) ? undefined : String(BigInt(n));
};

/** `x in list` and `key in map` by CEL's equality; undefined where cel-js's own answer stands (a string key). */
export function celIn(x: unknown, coll: unknown): boolean | undefined {
  if (Array.isArray(coll)) return coll.some((v) => celEquals(x, v));
  if (coll instanceof Map) return lookup(coll, x) !== undefined;
  if (typeof x === 'string' || !isMap(coll)) return undefined;
  // cel-js keeps a literal's int, uint and bool keys as their text.
  const key = objectKey(x);
  return key !== undefined && Object.hasOwn(coll, key);
}

/** The text cel-js would keep two literal keys under is the same: one would silently replace the other. */
export const sameObjectKey = (a: unknown, b: unknown) =>
  celEquals(a, b) || (objectKey(a) ?? a) === (objectKey(b) ?? String(b));

/** int(double): CEL's error for a double outside int64 (cel-js rounds -2^63 into range). */
export function intOfDouble(d: number): void {
  if (!(d > -(2 ** 63) && d < 2 ** 63)) throw new Error('integer overflow');
}

/** timestamp - timestamp: CEL's error past an int64 of nanoseconds (about 292 years), as its conformance cases have. */
export function timestampDifference(a: Date, b: Date): void {
  if (Math.abs(a.getTime() - b.getTime()) > 9_223_372_036_854) throw new Error('duration out of range');
}

const zones = new Map<string, Intl.DateTimeFormat>();
const FIELDS = { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' } as const;

/** The wall-clock time in `tz` as a Date whose UTC fields read it; an offset is `+01:00`, `-09:30` or `02:00`. */
function inZone(d: Date, tz: string): Date {
  const offset = /^([+-]?)(\d{2}):(\d{2})$/.exec(tz);
  if (offset) {
    const minutes = (Number(offset[2]) * 60 + Number(offset[3])) * (offset[1] === '-' ? -1 : 1);
    return new Date(d.getTime() + minutes * 60_000);
  }
  let f = zones.get(tz);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', ...FIELDS, second: 'numeric' });
    } catch {
      throw new Error(`invalid time zone: ${tz}`);
    }
    zones.set(tz, f);
  }
  const p = Object.fromEntries(f.formatToParts(d).map((x) => [x.type, Number(x.value)]));
  const at = new Date(Date.UTC(2000, p.month - 1, p.day, p.hour, p.minute, p.second, d.getUTCMilliseconds()));
  return new Date(at.setUTCFullYear(p.year));
}

const DAY = 86_400_000;
const GETTERS: Record<string, (z: Date) => number> = {
  getFullYear: (z) => z.getUTCFullYear(),
  getMonth: (z) => z.getUTCMonth(),
  getDate: (z) => z.getUTCDate(),
  getDayOfMonth: (z) => z.getUTCDate() - 1,
  getDayOfWeek: (z) => z.getUTCDay(),
  getDayOfYear: (z) => Math.floor((z.getTime() - new Date(z).setUTCMonth(0, 1)) / DAY),
  getHours: (z) => z.getUTCHours(),
  getMinutes: (z) => z.getUTCMinutes(),
  getSeconds: (z) => z.getUTCSeconds(),
  getMilliseconds: (z) => z.getUTCMilliseconds(),
};
export const isTimestampGetter = (name: string) => Object.hasOwn(GETTERS, name);

/** A timestamp getter (`getHours`, ...) in UTC or in the time zone `tz`. */
export function timestampField(name: string, d: Date, tz?: string): bigint {
  return BigInt(GETTERS[name](tz === undefined ? d : inZone(d, tz)));
}

/** A duration's milliseconds within its second, as CEL gives them (cel-js gives all of them). */
export const durationMilliseconds = (d: { nanos: number }) => BigInt(Math.trunc(d.nanos / 1e6));

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** string(bytes): an error for bytes that are not UTF-8 (cel-js puts U+FFFD in their place). */
export function bytesToString(b: Uint8Array): string {
  try {
    return utf8.decode(b);
  } catch (e) {
    throw new Error('string(bytes): the bytes are not UTF-8', { cause: e });
  }
}

/** A timestamp string with digits past the millisecond that are not zeros: a JavaScript Date cannot hold them. */
export const subMillisecond = (text: string) => /\.\d{3}\d*[1-9]\d*(Z|[+-]\d\d:\d\d)$/i.test(text);

/** A duration with a part smaller than a millisecond, which a timestamp plus it would lose. */
export const durationSubMillisecond = (d: unknown) => d instanceof Duration && d.nanos % 1_000_000 !== 0;
