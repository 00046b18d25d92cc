// The closures src/rules/direct.ts builds an expression of: each gives its node's value where that value is surely
// cel-js's (operands of one simple type, fields of plain maps that are there, loops of known length), and GIVE_UP
// anywhere else, so that CEL evaluates the expression instead. Pure.
import { ChangeVariable, type RuleVars } from './change.js';
import { matches } from './harden.js';
import { STEP_BUDGET } from './stopped.js';

/** This evaluation cannot say: CEL evaluates the expression instead. */
export const GIVE_UP: unique symbol = Symbol('give up');

/** What one evaluation carries: the variables, a macro's variables, and the steps taken. */
export interface Frame {
  vars: RuleVars;
  /** a macro's variables by name, innermost last set */
  scope: Map<string, unknown>;
  steps: number;
}
export type Closure = (f: Frame) => unknown;

/** Steps a loop may take here; past them CEL evaluates, and its meter decides. Well under CEL's budget: a step here
 *  is a whole body, which cel-js counts as at least as many steps as it has nodes. */
const STEP_LIMIT = STEP_BUDGET / 4;

export const giveUp: Closure = () => GIVE_UP;
export const isPlainMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
export const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
/** Types whose `==`, `!=` cel-js computes as JavaScript's `===` (two operands of one of them). */
export const SAME_SIMPLE = new Set(['string', 'bigint', 'boolean']);

const INT_MAX = 2n ** 63n - 1n;
const INT_MIN = -(2n ** 63n);
/** An int out of int64's range is an error wherever cel-js's meter sees it (any node's value but a literal's). */
export const int64 = (v: unknown) => (typeof v !== 'bigint' || (v <= INT_MAX && v >= INT_MIN) ? v : GIVE_UP);

/** `of.key`: a change's field (its getters make `before` and `after` when first read), or a plain map's key. */
export function select(of: unknown, key: string, fields: ReadonlySet<string>): unknown {
  if (of instanceof ChangeVariable)
    return fields.has(key) ? ((of as unknown as Record<string, unknown>)[key] ?? GIVE_UP) : GIVE_UP;
  if (isPlainMap(of) && hasOwn(of, key) && of[key] !== undefined) return int64(of[key]);
  return GIVE_UP;
}

/** `has(of.key)`. */
export function has(of: unknown, key: string, fields: ReadonlySet<string>): unknown {
  if (of instanceof ChangeVariable)
    return fields.has(key) ? (of as unknown as Record<string, unknown>)[key] !== undefined : GIVE_UP;
  if (isPlainMap(of)) return hasOwn(of, key) && of[key] !== undefined;
  return GIVE_UP;
}

export function equality(op: string, l: Closure, r: Closure): Closure {
  const want = op === '==';
  return (f) => {
    const a = l(f);
    if (a === GIVE_UP) return a;
    const b = r(f);
    if (b === GIVE_UP || typeof a !== typeof b || !SAME_SIMPLE.has(typeof a)) return GIVE_UP;
    return (a === b) === want;
  };
}

/** `<`, `<=`, `>`, `>=` of two ints or two timestamps (strings are ordered by code point in CEL: left to CEL). */
export function order(op: string, l: Closure, r: Closure): Closure {
  const holds = (c: number) => (op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0);
  return (f) => {
    const a = l(f);
    if (a === GIVE_UP) return a;
    const b = r(f);
    if (typeof a === 'bigint' && typeof b === 'bigint') return holds(a < b ? -1 : a > b ? 1 : 0);
    if (a instanceof Date && b instanceof Date) return holds(a.getTime() - b.getTime());
    return GIVE_UP;
  };
}

/** `&&` and `||`: decided by the left side, or else by the right; any side that cannot say gives up. */
export function logic(op: string, l: Closure, r: Closure): Closure {
  const decides = op === '||';
  return (f) => {
    const a = l(f);
    if (typeof a !== 'boolean') return GIVE_UP;
    if (a === decides) return a;
    const b = r(f);
    return typeof b === 'boolean' ? b : GIVE_UP;
  };
}

/** A string in a list of strings (a list holding anything else is CEL's to compare). */
export function membership(l: Closure, r: Closure): Closure {
  return (f) => {
    const x = l(f);
    const list = x === GIVE_UP ? x : r(f);
    if (typeof x !== 'string' || !Array.isArray(list)) return GIVE_UP;
    let found = false;
    for (const item of list) {
      if (typeof item !== 'string') return GIVE_UP;
      found ||= item === x;
    }
    return found;
  };
}

/** `string.startsWith(string)` and its kin: JavaScript's own, as cel-js calls them. */
export const STRING_METHODS: Record<string, (s: string, x: string) => unknown> = {
  startsWith: (s, x) => s.startsWith(x),
  endsWith: (s, x) => s.endsWith(x),
  contains: (s, x) => s.includes(x),
  matches: (s, x) => {
    try {
      return matches(s, x);
    } catch {
      return GIVE_UP;
    }
  },
};

/** A loop over a list: `all` or `exists` of a body, with its variable. */
export function quantifier(name: string, list: Closure, variable: string, body: Closure, bodySize: number): Closure {
  const stopAt = name === 'exists';
  return (f) => {
    const items = list(f);
    if (!Array.isArray(items)) return GIVE_UP;
    const outer = f.scope.get(variable);
    const shadowed = f.scope.has(variable);
    try {
      for (const item of items) {
        f.steps += bodySize + 2;
        if (f.steps > STEP_LIMIT) return GIVE_UP;
        f.scope.set(variable, item);
        const v = body(f);
        if (typeof v !== 'boolean') return GIVE_UP;
        if (v === stopAt) return v;
      }
      return !stopAt;
    } finally {
      if (shadowed) f.scope.set(variable, outer);
      else f.scope.delete(variable);
    }
  };
}

/** `size()` of a list (of a string it counts code points: CEL's). */
export function listSize(of: Closure): Closure {
  return (f) => {
    const v = of(f);
    return Array.isArray(v) ? BigInt(v.length) : GIVE_UP;
  };
}
