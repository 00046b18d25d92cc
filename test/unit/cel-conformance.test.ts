// Issue 41.5: what a rule may use is what CEL does. The official cel-spec conformance cases (as @bufbuild/cel-spec
// ships them) of every feature the README's Guardrails section lists, each compiled by the project's own rule
// compiler (compileCel: the rules' environment, checker, hardening and meter) and evaluated: each must give CEL's
// answer, or be refused at compile time with a located message (what `validate` shows); a wrong value fails.
// The counts are printed, so CI's log shows them.
import { describe, expect, it } from 'vitest';
import { compileCel } from '../../src/rules/compile.js';
import { canonical, conformanceCases, type ConformanceCase, type Neutral } from '../helpers/cel-conformance.js';

/** The README's features, each with the cel-spec suites that test it. */
const FEATURES: Record<string, string[]> = {
  'literals, identifiers and parsing': ['basic', 'parse', 'plumbing'],
  'comparisons and equality': ['comparisons'],
  'type conversions': ['conversions'],
  'maps, fields and has()': ['fields'],
  lists: ['lists'],
  'logic and the conditional': ['logic'],
  'macros (all, exists, exists_one, map, filter)': ['macros'],
  'int and uint arithmetic': ['integer_math'],
  'double arithmetic': ['fp_math'],
  strings: ['string'],
  'timestamps and durations': ['timestamps'],
  'optional types': ['optionals'],
};

// The library's own classes for uint and duration, as its evaluation gives them.
const sample = (expr: string) => compileCel(expr, 'any').run!({} as never) as object;
const UInt = sample('1u').constructor as new (v: bigint) => { value: bigint | number };
const Duration = sample("duration('1s')").constructor as new (
  s: bigint,
  n: number,
) => { seconds: bigint | number; nanos: number };

/** A case's binding as the compiler's evaluation takes it (as change.ts gives a rule its values). */
function toCel(v: Neutral): unknown {
  if ('int' in v) return v.int;
  if ('uint' in v) return new UInt(v.uint);
  if ('double' in v) return v.double;
  if ('string' in v) return v.string;
  if ('bool' in v) return v.bool;
  if ('bytes' in v) return v.bytes;
  if ('null' in v) return null;
  if ('list' in v) return v.list.map(toCel);
  if ('map' in v)
    return v.map.every(([k]) => 'string' in k)
      ? Object.fromEntries(v.map.map(([k, x]) => [(k as { string: string }).string, toCel(x)]))
      : new Map(v.map.map(([k, x]) => [toCel(k), toCel(x)]));
  if ('timestamp' in v) return new Date(Number(v.timestamp.seconds) * 1000 + v.timestamp.nanos / 1e6);
  if ('duration' in v) return new Duration(v.duration.seconds, v.duration.nanos);
  throw new Error(`no binding for ${canonical(v)}`);
}

/** What the evaluation gave, as a Neutral. */
function fromCel(v: unknown): Neutral {
  if (typeof v === 'bigint') return { int: v };
  if (typeof v === 'number') return { double: v };
  if (typeof v === 'string') return { string: v };
  if (typeof v === 'boolean') return { bool: v };
  if (v === null || v === undefined) return { null: true };
  if (v instanceof Uint8Array) return { bytes: v };
  if (Array.isArray(v)) return { list: v.map(fromCel) };
  if (v instanceof Date) {
    const ms = v.getTime();
    return { timestamp: { seconds: BigInt(Math.floor(ms / 1000)), nanos: (((ms % 1000) + 1000) % 1000) * 1e6 } };
  }
  if (v instanceof UInt) return { uint: BigInt(v.value) };
  if (v instanceof Duration) return { duration: { seconds: BigInt(v.seconds), nanos: v.nanos } };
  if (v instanceof Map) return { map: [...v].map(([k, x]) => [fromCel(k), fromCel(x)]) };
  // cel-js names the null type `null`; CEL, `null_type`.
  if (v?.constructor?.name === 'Type')
    return {
      type: String(v)
        .replace(/^Type<(.*)>$/, '$1')
        .replace(/^null$/, 'null_type'),
    };
  if (typeof v === 'object') return { map: Object.entries(v).map(([k, x]) => [{ string: k }, fromCel(x)]) };
  throw new Error(`an output of no CEL type: ${String(v)}`);
}

type Outcome = 'passed' | 'refused' | 'wrong';

/** One case through the rule compiler: CEL's answer, refused at compile time (located), or wrong (and how). */
function run(c: ConformanceCase): { outcome: Outcome; detail?: string } {
  const compiled = compileCel(c.expr, 'any', c.decls);
  if (!compiled.run) {
    if ('error' in c.expect) return { outcome: 'passed' };
    return compiled.offset === undefined
      ? { outcome: 'wrong', detail: `refused without a place: ${compiled.problem}` }
      : { outcome: 'refused', detail: compiled.problem };
  }
  let got: Neutral;
  try {
    const vars = Object.fromEntries(Object.entries(c.bindings).map(([k, v]) => [k, toCel(v)]));
    got = fromCel(compiled.run(vars as never));
  } catch (e) {
    if ('error' in c.expect) return { outcome: 'passed' };
    return { outcome: 'wrong', detail: `error ${(e as Error).message.split('\n')[0]}` };
  }
  if ('error' in c.expect) return { outcome: 'wrong', detail: `${canonical(got)} where CEL raises an error` };
  const want = canonical(c.expect.value);
  return canonical(got) === want
    ? { outcome: 'passed' }
    : { outcome: 'wrong', detail: `${canonical(got)} where CEL gives ${want}` };
}

describe('the cel-spec conformance cases through the rule compiler', () => {
  const totals = { cases: 0, passed: 0, refused: 0, wrong: 0 };
  it.each(Object.entries(FEATURES))(
    '%s: every case gives CEL’s answer or is refused at its place',
    (feature, suites) => {
      const cases = conformanceCases(suites);
      expect(cases.length).toBeGreaterThan(0);
      const counts = { passed: 0, refused: 0, wrong: 0 };
      const wrong: string[] = [];
      for (const c of cases) {
        const { outcome, detail } = run(c);
        counts[outcome]++;
        if (outcome === 'wrong') wrong.push(`${c.path}: ${c.expr} -> ${detail}`);
      }
      totals.cases += cases.length;
      for (const k of ['passed', 'refused', 'wrong'] as const) totals[k] += counts[k];
      console.log(
        `cel-spec conformance, ${feature}: ${counts.passed} of ${cases.length} passed, ${counts.refused} refused by validate, ${counts.wrong} wrong`,
      );
      expect(wrong).toEqual([]);
    },
  );

  it('prints the pass count', () => {
    console.log(
      `cel-spec conformance through the rule compiler: ${totals.passed} of ${totals.cases} cases passed, ${totals.refused} refused by validate with a located message, ${totals.wrong} wrong`,
    );
    expect(totals.cases).toBeGreaterThan(900);
  });
});
