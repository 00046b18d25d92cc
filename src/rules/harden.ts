// Where cel-js's functions differ from CEL's, the checked expression's calls are given CEL's behaviour: `matches`
// runs RE2 (re2js: linear time, as CEL specifies; JavaScript's RegExp backtracks, and `^(a|aa)+$` on 40 characters
// takes seconds), and a timestamp's getters take a time zone as CEL does (an IANA name or a `+01:00` offset; cel-js
// throws on an offset, and reads a name through the machine's own zone). Done once per compiled expression, on the
// call nodes cel-js's checker has given an implementation (`handle`).
import { RE2JS } from 're2js';

/** A cel-js AST node, as far as this file uses it. */
interface CelNode {
  op: string;
  args: unknown;
  start: number;
  handle?: (...a: unknown[]) => unknown;
}

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

/** The pattern compiled by RE2 (cached: compiling costs far more than matching); a syntax error as CEL's error. */
export function re2(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (!re) {
    try {
      re = RE2JS.compile(pattern);
    } catch (e) {
      throw new Error(`invalid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}`, { cause: e });
    }
    if (compiled.size > 1000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

function matches(text: unknown, pattern: unknown): boolean {
  if (typeof text !== 'string' || typeof pattern !== 'string') throw new Error('no such overload: matches');
  return re2(pattern).test(text);
}

const zones = new Map<string, Intl.DateTimeFormat>();

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
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: tz,
        hourCycle: 'h23',
        ...{ year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' },
      });
    } catch {
      throw new Error(`invalid time zone: ${tz}`);
    }
    zones.set(tz, f);
  }
  const p = Object.fromEntries(f.formatToParts(d).map((x) => [x.type, Number(x.value)]));
  const at = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, d.getUTCMilliseconds());
  // Date.UTC reads years 0-99 as 1900-1999.
  return new Date(p.year < 100 ? new Date(at).setUTCFullYear(p.year) : at);
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

/** A regular expression given as a literal that RE2 refuses: where it is in the expression, and why. */
export interface PatternProblem {
  offset: number;
  problem: string;
}

/** The checked tree `ast` given CEL's `matches` and timestamp getters; literal patterns RE2 refuses are returned. */
export function harden(ast: unknown): PatternProblem[] {
  const problems: PatternProblem[] = [];
  for (const n of nodes(ast)) {
    if (!Array.isArray(n.args) || typeof n.args[0] !== 'string' || !n.handle) continue;
    const name = n.args[0];
    const args = (n.op === 'rcall' ? n.args[2] : n.args[1]) as unknown[];
    if (name === 'matches' && ((n.op === 'rcall' && args.length === 1) || (n.op === 'call' && args.length === 2))) {
      const pattern = args[args.length - 1];
      if (isNode(pattern) && pattern.op === 'value' && typeof pattern.args === 'string') {
        try {
          re2(pattern.args);
        } catch (e) {
          problems.push({ offset: pattern.start, problem: (e as Error).message });
        }
      }
      n.handle = (a: unknown) => matches((a as unknown[])[0], (a as unknown[])[1]);
    } else if (n.op === 'rcall' && GETTERS[name] && args.length <= 1) {
      const cels = n.handle;
      const get = GETTERS[name];
      // A duration has getters of the same names: those stay cel-js's.
      n.handle = (a: unknown, ...rest: unknown[]) => {
        const [d, tz] = a as [unknown, unknown];
        if (!(d instanceof Date) || (tz !== undefined && typeof tz !== 'string')) return cels(a, ...rest);
        return BigInt(get(tz === undefined ? d : inZone(d, tz)));
      };
    }
  }
  return problems;
}
