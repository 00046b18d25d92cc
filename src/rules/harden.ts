// The checked expression given CEL's semantics where cel-js's differ (semantics.ts has them): each call or operator
// node cel-js's checker gave an implementation (`handle`) is given CEL's where the two part. `matches` runs RE2
// (re2js: linear time, as CEL specifies; JavaScript's RegExp backtracks, and `^(a|aa)+$` on 40 characters takes
// seconds). What cel-js cannot give at all is refused here, at its place: a literal pattern RE2 refuses, a duplicate
// literal map key, a bytes literal beyond ASCII, a timestamp literal finer than a millisecond, `exists_one` over a
// map whose keys are not strings. Done once per compiled expression.
import { Optional } from '@marcbachmann/cel-js';
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { inRange } from './meter.js';
import * as cel from './semantics.js';

/** A cel-js AST node, as far as this file uses it. */
interface CelNode {
  op: string;
  args: unknown;
  start: number;
  end: number;
  input: string;
  checkedType?: { kind?: string; name?: string; keyType?: { name?: string } };
  handle?: Handle;
}
type Handle = (...a: unknown[]) => unknown;

const isNode = (x: unknown): x is CelNode =>
  typeof x === 'object' && x !== null && typeof (x as CelNode).op === 'string' && 'args' in x;

/** Every node of the parsed tree (a macro's arguments included: they are nodes of the call). */
function* nodes(root: unknown): Generator<CelNode> {
  const stack: unknown[] = [root];
  while (stack.length) {
    const x = stack.pop();
    if (Array.isArray(x)) stack.push(...(x as unknown[]));
    else if (isNode(x)) {
      yield x;
      if (Array.isArray(x.args) || isNode(x.args)) stack.push(x.args);
    }
  }
}

const compiled = new Map<string, RE2JS>();
/** re2js, loaded when a rule first uses `matches` (its loading is about 30 ms, a run's rules mostly never need it). */
let engine: typeof RE2JS | undefined;
const loadRe2 = () => (engine ??= (createRequire(import.meta.url)('re2js') as { RE2JS: typeof RE2JS }).RE2JS);

/** The pattern compiled by RE2 (cached: compiling costs far more than matching); a syntax error as CEL's error. */
export function re2(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (!re) {
    try {
      re = loadRe2().compile(pattern);
    } catch (e) {
      throw new Error(`invalid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}`, { cause: e });
    }
    if (compiled.size > 1000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

export function matches(text: unknown, pattern: unknown): boolean {
  if (typeof text !== 'string' || typeof pattern !== 'string') throw new Error('no such overload: matches');
  return re2(pattern).test(text);
}

/** Something cel-js cannot do as CEL does, refused at compile time: where it is in the expression, and why. */
export interface Refusal {
  offset: number;
  problem: string;
}

const literal = (n: unknown): n is CelNode => isNode(n) && n.op === 'value';

/** The call `n` (`name(args)` or `receiver.name(args)`) given CEL's behaviour; a refusal where it cannot be. */
function hardenCall(n: CelNode, name: string, args: unknown[]): Refusal | undefined {
  const cels = n.handle;
  const receiver = n.op === 'rcall' ? (n.args as unknown[])[1] : undefined;
  if (name === 'matches') {
    const pattern = args[args.length - 1];
    if (literal(pattern) && typeof pattern.args === 'string')
      try {
        re2(pattern.args);
      } catch (e) {
        return { offset: pattern.start, problem: (e as Error).message };
      }
    n.handle = (a: unknown) => matches((a as unknown[])[0], (a as unknown[])[1]);
  } else if (n.op === 'rcall' && cel.isTimestampGetter(name) && args.length <= 1 && cels) {
    // A duration has getters of the same names: cel-js's stand, but for getMilliseconds.
    n.handle = (a: unknown, x: unknown, y: unknown) => {
      const [d, tz] = a as [unknown, unknown];
      if (d instanceof Date && (tz === undefined || typeof tz === 'string')) return cel.timestampField(name, d, tz);
      if (d instanceof cel.Duration && name === 'getMilliseconds') return cel.durationMilliseconds(d);
      return cels(a, x, y);
    };
  } else if (n.op === 'call' && name === 'string' && args.length === 1 && cels) {
    n.handle = (a: unknown, x: unknown, y: unknown) => {
      const [b] = a as unknown[];
      return b instanceof Uint8Array ? cel.bytesToString(b) : cels(a, x, y);
    };
  } else if (n.op === 'call' && name === 'duration' && args.length === 1 && cels) {
    n.handle = (a: unknown, x: unknown, y: unknown) => inRange(cels(a, x, y));
  } else if (n.op === 'call' && name === 'int' && args.length === 1 && cels) {
    n.handle = (a: unknown, x: unknown, y: unknown) => {
      const [d] = a as unknown[];
      if (typeof d === 'number') cel.intOfDouble(d);
      return cels(a, x, y);
    };
  } else if (n.op === 'call' && name === 'timestamp' && args.length === 1 && cels) {
    const [text] = args;
    if (literal(text) && typeof text.args === 'string' && cel.subMillisecond(text.args))
      return { offset: text.start, problem: 'a timestamp finer than a millisecond is not supported in rules' };
    n.handle = (a: unknown, x: unknown, y: unknown) => {
      const [t] = a as unknown[];
      if (typeof t === 'string' && cel.subMillisecond(t))
        throw new Error('a timestamp finer than a millisecond is not supported in rules');
      return cels(a, x, y);
    };
  } else if (name === 'exists_one' && isNode(receiver)) {
    const type = receiver.checkedType;
    if (type?.kind === 'map' && type.keyType?.name !== 'string' && type.keyType?.name !== 'dyn')
      return { offset: n.start, problem: 'exists_one over a map whose keys are not strings is not supported in rules' };
  }
  return undefined;
}

const ORDER: Record<string, (c: number) => boolean> = {
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};
const SIMPLE = new Set(['string', 'bool', 'int', 'uint', 'double', 'bytes', 'null']);
/** The operands' checked types are one simple type, or (for `in`) a string in a list or map of strings. */
function sameStaticType(n: CelNode): boolean {
  const [l, r] = (Array.isArray(n.args) ? n.args : []) as CelNode[];
  const [a, b] = [l?.checkedType?.name, r?.checkedType?.name];
  if (n.op === 'in') return a === 'string' && (b === 'list<string>' || !!b?.startsWith('map<string,'));
  return a !== undefined && a === b && SIMPLE.has(a);
}
const sameSimple = (l: unknown, r: unknown) => typeof l === typeof r && typeof l !== 'object';
const number = (v: unknown): v is bigint | number => typeof v === 'bigint' || typeof v === 'number';
const uintToInt = (v: unknown) => (v instanceof cel.UInt ? BigInt(v.value) : v);

/** The operator node `n` given CEL's behaviour where cel-js's differs. The handles take their arguments by name
 *  (no rest parameter): they run for every evaluation of the node. */
function hardenOperator(n: CelNode, cels: Handle): void {
  const op = n.op;
  // Two operands of one simple type (most comparisons in rules: string with string) are cel-js's to compare.
  if (sameStaticType(n) && (op === '==' || op === '!=' || ORDER[op] || op === 'in')) return;
  if (op === '==' || op === '!=') {
    const want = op === '==';
    n.handle = (l, r, x, y) => (sameSimple(l, r) ? cels(l, r, x, y) : cel.celEquals(l, r) === want);
  } else if (op === 'in') {
    n.handle = (l, r, x, y) => cel.celIn(l, r) ?? cels(l, r, x, y);
  } else if (ORDER[op]) {
    const holds = ORDER[op];
    n.handle = (l, r, x, y) => {
      const [a, b] = [uintToInt(l), uintToInt(r)];
      if (sameSimple(l, r) || !number(a) || !number(b)) return cels(l, r, x, y);
      return holds(cel.compareNumbers(a, b));
    };
  } else if (op === '[]') {
    n.handle = (l, r, x, y) => cels(l, Array.isArray(l) ? uintToInt(r) : r, x, y);
  } else if (op === '.' && (n.args as CelNode[])[0].checkedType?.kind === 'optional') {
    // Selecting a field of an optional's value that is not a map is an error, as it is without the optional.
    n.handle = (l, r, x, y) => {
      if (l instanceof Optional && l.hasValue() && !cel.isMap(l.value()))
        throw new Error(`no such field: ${String(r)}`);
      return cels(l, r, x, y);
    };
  } else if ((op === '+' || op === '-') && /Timestamp|Duration|dyn/.test(n.checkedType?.name ?? '')) {
    n.handle = (l, r, x, y) => {
      if ((l instanceof Date && cel.durationSubMillisecond(r)) || (r instanceof Date && cel.durationSubMillisecond(l)))
        throw new Error('a timestamp finer than a millisecond is not supported in rules');
      if (op === '-' && l instanceof Date && r instanceof Date) cel.timestampDifference(l, r);
      return inRange(cels(l, r, x, y));
    };
  }
}

/** A literal that cel-js reads otherwise than CEL: a bytes literal beyond ASCII, a map literal's duplicate key. */
function refuseLiteral(n: CelNode): Refusal | undefined {
  if (n.op === 'value' && n.args instanceof Uint8Array && /[^\x00-\x7f]/.test(n.input.slice(n.start, n.end)))
    return { offset: n.start, problem: 'a bytes literal with characters beyond ASCII: write them as \\x escapes' };
  if (n.op !== 'map') return undefined;
  const keys = (n.args as Array<[unknown, unknown]>).map(([k]) => k).filter(literal);
  const dup = keys.find((k, i) => keys.slice(0, i).some((x) => cel.sameObjectKey(x.args, k.args)));
  return dup && { offset: dup.start, problem: 'a map literal has this key twice' };
}

/** The checked tree `ast` given CEL's semantics; what cannot be given them is returned, each at its place. */
export function harden(ast: unknown): Refusal[] {
  const refusals: Refusal[] = [];
  for (const n of nodes(ast)) {
    const refused = refuseLiteral(n);
    if (refused) refusals.push(refused);
    if ((n.op === 'rcall' || n.op === 'call') && Array.isArray(n.args) && typeof n.args[0] === 'string') {
      const args = (n.op === 'rcall' ? n.args[2] : n.args[1]) as unknown[];
      const call = hardenCall(n, n.args[0], args);
      if (call) refusals.push(call);
    } else if (n.handle) hardenOperator(n, n.handle);
  }
  return refusals;
}
